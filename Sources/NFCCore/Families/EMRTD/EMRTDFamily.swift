/// The eMRTD row of ``TagFamilies``: electronic passports and ID cards (ICAO Doc 9303). They are
/// identified — ``ISODEPRefinement`` selects the LDS application `A0000002471001` and nothing more of
/// it — and reported. A dump answers ``NFCError/unsupportedOperation(_:)`` (code `unsupported`) with
/// ``refusal``: the data groups are only readable after Basic Access Control or PACE (ICAO 9303-11 §4),
/// which need the MRZ or CAN printed on the document. The family has no NDEF mapping, so write, format
/// and lock get the registry's one refusal ("NDEF operations are not supported for ePassport (eMRTD)").
///
/// Why nothing is tried: a chip counts failed access attempts (some slow down or block after too many),
/// and GET CHALLENGE / READ BINARY of EF.COM would only earn a 6982 without BAC or PACE. So no command
/// beyond that SELECT is sent to a passport by NFCBridge.
public struct EMRTDFamily: TagFamily {
    public init() {}

    public var name: String { "eMRTD" }

    public func claims(_ type: CardType) -> Bool { type.family == .passport }

    /// The reason every verb gives, naming the access protocol the chip needs.
    public static let refusal =
        "Reading an eMRTD (passport) needs BAC or PACE with the document's MRZ or CAN (ICAO 9303-11); NFCBridge only identifies it"

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        throw NFCError.unsupportedOperation(Self.refusal)
    }

    public func userSummary(for dump: TagDump, storage: String) -> String? {
        "Passport chips use the dedicated eMRTD workflow instead of generic dump reads."
    }
}
