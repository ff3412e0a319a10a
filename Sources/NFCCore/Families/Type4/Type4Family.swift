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
        switch dump.cardInfo.type.family {
        case .type4:
            return dump.family.payload(as: NDEFWriteAccess.self)?.ndefWritable == true ? [.readable, .writable] : [.readable]
        default:
            // Upstream's "operable" test: an unrecognised ATQA/SAK is identification only (SmartMX is readable).
            if case .unknown = dump.cardInfo.type { return [.identificationOnly] }
            return nil
        }
    }

    /// The CC's write access of a Type 4 dump: its JSON `ndefWritable` key, or in a file written without it
    /// the CC file (E103) the dump holds — never the `Write Access` fact.
    public func familyData(fromJSON json: [UInt8], dump: TagDump) throws -> FamilyDumpData? {
        guard dump.cardInfo.type.family == .type4 else { return nil }
        if let writable = try FamilyJSON.decode(NDEFWriteAccess.JSONKeys.self, from: json).ndefWritable {
            return .type4(ndefWritable: writable)
        }
        let ccFile = dump.files.first { $0.identifier == Type4NDEF.capabilityContainerFileID }
        return ccFile.flatMap { try? Type4CapabilityContainer(bytes: $0.data) }.map { .type4(ndefWritable: $0.isWritable) }
    }
}

extension FamilyDumpData {
    /// Type 4: what the CC says about writing the NDEF file.
    public static func type4(ndefWritable: Bool) -> FamilyDumpData { FamilyDumpData(NDEFWriteAccess(ndefWritable: ndefWritable)) }
}
