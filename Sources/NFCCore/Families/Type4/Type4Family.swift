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

    /// Generic ISO 7816 (`.smartMX`) for ``ISODEPRefinement`` to probe: SAK 20/28/38 with any ATQA
    /// (after DESFire's own ATQA rule), and SAK 00 with ATQA 0004/0002/0048 (upper nibble of the low
    /// byte free; libnfc target-subr.c's SmartMX rows).
    public var classifierRules: [CardClassifier.Rule] {
        [
            .init(atqaMask: 0xF0FF, atqaValues: [0x0004, 0x0002, 0x0048], saks: [0x00], type: .smartMX),
            .init(atqaMask: 0x0000, atqaValues: [], saks: [0x20, 0x28, 0x38], type: .smartMX),
        ]
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
        return try await Type4NDEFReader.read(transport: apdu, selected: info.type4Selection)
    }

    public func dump(info: CardInfo, transport: any TagTransport, options: DumpOptions) async throws -> TagDump {
        guard info.type.family == .type4 else { throw TagVerb.dump.unsupported(for: info.type) }
        guard let apdu = transport as? any APDUTransport else {
            throw NFCError.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs")
        }
        var dump = try await Type4Dump.dump(info: info, transport: apdu)
        // An NTAG 413/424 DNA: its Type 4 application is also a DESFire-style one with fixed files
        // (NT4H2421Gx §8.2: 01h CC, 02h NDEF, 03h proprietary), walked with its own command set
        // (``DESFireCommandSet/ntag4xxDNA``: GetFileSettings F5h, ReadData ADh).
        if let version = info.version.flatMap({ try? DESFireVersion(bytes: $0) }),
           DESFireCommandSet.forVersion(version) == .ntag4xxDNA {
            try Task.checkCancellation()
            do {
                let walk = try await DESFireDumper.dump(transport: apdu, version: version)
                dump.files += walk.tagDump(info: info).files
                dump.facts += walk.facts.filter { $0.key != "Framing" }
            } catch let error as NFCError where error != .tagRemoved && error != .userCanceled && error != .timeout {
                // The Type 4 files are read; an answer the walk cannot read costs only the walk.
                dump.facts.append(Fact(key: "Files", value: "Not walked: \(error.code)"))
            }
        }
        return dump
    }

    /// Flipper Zero has no NTAG 4xx DNA format: flipperzero-firmware's NFC protocols
    /// (`lib/nfc/protocols`) hold `mf_desfire` for MIFARE DESFire and no Type 4 / NTAG 4xx DNA one,
    /// and a 424 written as "Mifare DESFire" would have Flipper emulate an application directory
    /// (SelectApplication, GetApplicationIDs) the chip does not have (NT4H2421Gx §10.2 Table 22).
    public var fileFormats: [FileFormatRow] { Self.files }

    private static let files: [FileFormatRow] = [
        .refusing(.flipper, takes: isNTAG4xxDNA) { dump in
            let name = dump.cardInfo.product?.name ?? "NTAG 4xx DNA"
            return NFCError.unsupportedOperation(
                "Flipper Zero has no \(name) format (its NFC files hold Mifare DESFire and page-based tags; written as Mifare DESFire, the \(name) would emulate an application directory the chip does not have): use json")
        },
    ]

    /// A Type 4 dump whose GET_VERSION answer names the NTAG 4xx DNA command set.
    @Sendable private static func isNTAG4xxDNA(_ dump: TagDump) -> Bool {
        guard dump.cardInfo.type.family == .type4,
              let version = dump.cardInfo.version.flatMap({ try? DESFireVersion(bytes: $0) }) else { return false }
        return DESFireCommandSet.forVersion(version) == .ntag4xxDNA
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
            return dump.ndefWriteAccess?.ndefWritable == true ? [.readable, .writable] : [.readable]
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
