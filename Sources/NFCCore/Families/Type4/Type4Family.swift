/// The ISO-DEP row of ``TagFamilies``: NFC Forum Type 4 tags and the cards anticollision leaves generic
/// (SAK 20/28/38 `.smartMX`, unrecognised ATQA/SAK), which ``ISODEPRefinement`` probes for eMRTD, a
/// Type 4 CC and DESFire. NDEF lives in the NFC Forum Type 4 application; only Type 4 tags are dumped.
/// MIFARE DESFire has its own row (``DESFireFamily``), which reuses this row's NDEF mapping.
public struct Type4Family: TagFamily {
    public init() {}

    public var name: String { "ISO-DEP (NFC Forum Type 4)" }

    public func claims(_ type: CardType) -> Bool {
        type.family == .type4 || type.family == .unknown
    }

    /// eMRTD SELECT, Type 4 CC, DESFire GET_VERSION for the generic cards. A Type 4 type is already refined.
    public func refine(_ info: CardInfo, transport: any TagTransport) async throws -> CardInfo {
        guard info.type.family != .type4 else { return info }
        let (refined, stop) = await ISODEPRefinement.run(info, transport: transport)
        if let stop { throw stop }
        return refined
    }

    /// Type 4 tags and SmartMX may hold the NDEF Tag Application; an unrecognised card does not.
    public func ndefMapping(for type: CardType) -> NDEFMapping? {
        if case .unknown = type { return nil }
        return .type4
    }

    public func readNDEF(info: CardInfo, transport: any TagTransport) async throws -> NDEFReadResult {
        guard ndefMapping(for: info.type) != nil else { return .notRead(TagVerb.readNDEF.unsupported(for: info.type)) }
        guard let apdu = transport as? any APDUTransport else {
            return .notRead(.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs"))
        }
        return try await Type4NDEFReader.read(transport: apdu)
    }

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        guard info.type.family == .type4 else { throw TagVerb.dump.unsupported(for: info.type) }
        guard let apdu = transport as? any APDUTransport else {
            throw NFCError.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs")
        }
        return try await Type4Dump.dump(info: info, transport: apdu)
    }

    public func write(ndef bytes: [UInt8], to transport: any TagTransport, info: CardInfo, password: [UInt8]?)
        async throws(TagOperationError) -> WriteReport
    {
        guard ndefMapping(for: info.type) != nil else { throw TagOperationError(TagVerb.write.unsupported(for: info.type)) }
        return try await Type4NDEFOperations.write(bytes, to: transport, info: info)
    }

    public func lock(_ transport: any TagTransport, info: CardInfo, expectedUID: [UInt8], password: [UInt8]?)
        async throws(TagOperationError) -> LockReport
    {
        guard ndefMapping(for: info.type) != nil else { throw TagOperationError(TagVerb.lock.unsupported(for: info.type)) }
        return try await Type4NDEFOperations.lock(transport, info: info)
    }

    public func userSummary(for dump: TagDump, storage: String) -> String? {
        dump.cardInfo.type.family == .type4 ? "Read an NFC Forum Type 4 file layout with \(storage)." : nil
    }

    public func inferredCapabilities(of dump: TagDump) -> [CardCapability]? {
        guard dump.cardInfo.type.family == .type4 else { return nil }
        if case let .type4(writable) = dump.family, writable { return [.readable, .writable] }
        return [.readable]
    }

    /// The CC's write access as a JSON dump's `Write Access` fact records it.
    public func familyData(fromImported dump: TagDump) throws -> FamilyDumpData? {
        guard dump.cardInfo.type.family == .type4 else { return nil }
        return dump.fact("Write Access").map { .type4(ndefWritable: $0 == "Writable") }
    }
}
