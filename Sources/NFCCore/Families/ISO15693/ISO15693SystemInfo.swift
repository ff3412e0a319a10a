/// What GET SYSTEM INFORMATION (2Bh) or EXTENDED GET SYSTEM INFORMATION (3Bh) told about a tag
/// (ISO/IEC 15693-3, the two commands' response formats). Every field but the UID is optional: the
/// information flags say which the tag sent.
public struct ISO15693SystemInfo: FamilyDumpPayload {
    /// The UID the answer carried, MSB first (`E0 …`).
    public var uid: [UInt8]
    /// Data storage format identifier.
    public var dsfid: UInt8?
    /// Application family identifier.
    public var afi: UInt8?
    /// Number of blocks; nil when the tag did not say.
    public var blockCount: Int?
    /// Bytes per block; nil when the tag did not say.
    public var blockSize: Int?
    /// IC reference (manufacturer-defined product code).
    public var icReference: UInt8?
    /// True when the DSFID is known to be locked (LOCK DSFID, ISO/IEC 15693-3). Neither GET SYSTEM
    /// INFORMATION nor NFCBridge's dump tells it: only a Flipper file's `Lock DSFID: true` does; nil
    /// means not known (a `false` there is what NFCBridge's own export writes for "not known").
    public var dsfidLocked: Bool?
    /// True when the AFI is known to be locked (LOCK AFI), as ``dsfidLocked``.
    public var afiLocked: Bool?

    /// Creates system information.
    public init(uid: [UInt8], dsfid: UInt8? = nil, afi: UInt8? = nil, blockCount: Int? = nil, blockSize: Int? = nil,
                icReference: UInt8? = nil, dsfidLocked: Bool? = nil, afiLocked: Bool? = nil) {
        self.uid = uid
        self.dsfid = dsfid
        self.afi = afi
        self.blockCount = blockCount
        self.blockSize = blockSize
        self.icReference = icReference
        self.dsfidLocked = dsfidLocked
        self.afiLocked = afiLocked
    }

    /// The block counts a tag can report: EXTENDED GET SYSTEM INFORMATION gives the number of blocks
    /// − 1 in 2 bytes (ISO/IEC 15693-3, its response format), so 1–65536.
    static let blockCounts = 1...65536
    /// The block sizes a tag can report: block size − 1 in bits 1–5 of one byte (ISO/IEC 15693-3, GET
    /// SYSTEM INFORMATION response format), so 1–32 bytes.
    static let blockSizes = 1...32

    /// Information flags of both answers: DSFID, AFI, memory size, IC reference (bits 1–4).
    static let dsfidFlag: UInt8 = 0x01, afiFlag: UInt8 = 0x02, sizeFlag: UInt8 = 0x04, icReferenceFlag: UInt8 = 0x08

    /// Parses the parameters of a GET SYSTEM INFORMATION answer (after the response flags): info flags,
    /// UID (8 bytes LSB first), [DSFID], [AFI], [blocks − 1 (1 byte), block size − 1 (bits 1–5)], [IC
    /// reference]. Throws ``NFCError/invalidResponse(_:)`` when the answer is shorter than its flags say.
    public static func parse(_ answer: [UInt8]) throws(NFCError) -> ISO15693SystemInfo {
        try parse(answer, blockCountBytes: 1)
    }

    /// Parses the parameters of an EXTENDED GET SYSTEM INFORMATION answer: the same fields, the block
    /// count − 1 in 2 bytes LSB first (the later optional fields, asked for by none of NFCCore's
    /// requests, are ignored).
    public static func parseExtended(_ answer: [UInt8]) throws(NFCError) -> ISO15693SystemInfo {
        try parse(answer, blockCountBytes: 2)
    }

    private static func parse(_ answer: [UInt8], blockCountBytes: Int) throws(NFCError) -> ISO15693SystemInfo {
        var reader = Reader(bytes: answer)
        let flags = try reader.byte()
        var info = ISO15693SystemInfo(uid: try reader.bytes(8).reversed())
        if flags & dsfidFlag != 0 { info.dsfid = try reader.byte() }
        if flags & afiFlag != 0 { info.afi = try reader.byte() }
        if flags & sizeFlag != 0 {
            let count = try reader.bytes(blockCountBytes)
            info.blockCount = count.reversed().reduce(0) { $0 << 8 | Int($1) } + 1
            info.blockSize = Int(try reader.byte() & 0x1F) + 1
        }
        if flags & icReferenceFlag != 0 { info.icReference = try reader.byte() }
        return info
    }

    /// Reads the system information the way the spec wants the memory size found: GET SYSTEM INFORMATION,
    /// then EXTENDED GET SYSTEM INFORMATION when the first answer says 256 blocks (its one-byte maximum),
    /// gives no size, or is refused. `probes` records each command and how it ended.
    ///
    /// A tag that refuses both keeps what the first answer said (256 blocks stays 256). Throws when the
    /// tag left the field or the reader went away; a refusal or silence is not thrown (the result then
    /// has no size, or is nil when neither command answered).
    public static func read(uid: [UInt8], transport: any ISO15693Transport, probes: inout [String]) async throws
        -> ISO15693SystemInfo?
    {
        var basic: ISO15693SystemInfo?
        do {
            basic = try parse(try await ISO15693Command.exchange(ISO15693Command.getSystemInformation(uid: uid),
                                                                 transport: transport))
            probes.append("GET SYSTEM INFORMATION: " + (basic?.blockCount.map { "\($0) blocks" } ?? "no size"))
        } catch let error as NFCError where isRefusal(error) {
            probes.append("GET SYSTEM INFORMATION: \(describe(error))")
        }
        if let basic, let count = basic.blockCount, count < 256 { return basic }
        do {
            var extended = try parseExtended(
                try await ISO15693Command.exchange(ISO15693Command.extendedGetSystemInformation(uid: uid),
                                                   transport: transport))
            probes.append("EXTENDED GET SYSTEM INFORMATION: "
                          + (extended.blockCount.map { "\($0) blocks" } ?? "no size"))
            // Fields only the first answer had are kept.
            extended.dsfid = extended.dsfid ?? basic?.dsfid
            extended.afi = extended.afi ?? basic?.afi
            extended.icReference = extended.icReference ?? basic?.icReference
            if extended.blockCount == nil, let basic, basic.blockCount != nil { return basic }
            return extended
        } catch let error as NFCError where isRefusal(error) {
            probes.append("EXTENDED GET SYSTEM INFORMATION: \(describe(error))")
            return basic
        }
    }

    /// An error response, silence or a malformed answer: the tag does not do the command.
    static func isRefusal(_ error: NFCError) -> Bool {
        switch error {
        case .commandRefused, .timeout, .invalidResponse: true
        default: false
        }
    }

    private static func describe(_ error: NFCError) -> String {
        switch error {
        case let .commandRefused(_, code?): "refused (\(ISO15693Error.name(of: code)))"
        case .timeout: "no answer"
        default: "refused"
        }
    }

    /// A cursor over an answer that throws ``NFCError/invalidResponse(_:)`` past its end.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() throws(NFCError) -> UInt8 {
            guard offset < bytes.count else { throw .invalidResponse(bytes) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int) throws(NFCError) -> [UInt8] {
            guard offset + count <= bytes.count else { throw .invalidResponse(bytes) }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }
    }
}

extension ISO15693SystemInfo {
    /// The JSON export's additive key: `"iso15693": {"dsfid", "afi", "blockCount", "blockSize",
    /// "icReference", "dsfidLocked", "afiLocked"}` (numbers, the two locks `true`; a field the tag did
    /// not report, a lock not known, is left out). The UID is the dump's own.
    struct JSONKeys: Decodable {
        struct Stored: Codable {
            var dsfid: UInt8?
            var afi: UInt8?
            var blockCount: Int?
            var blockSize: Int?
            var icReference: UInt8?
            var dsfidLocked: Bool?
            var afiLocked: Bool?
        }
        var iso15693: Stored?
    }

    /// The system information a JSON document's `iso15693` key holds, for the dump's `uid`; nil for a
    /// document without the key. The count and size are checked here, where they enter: the exports lay
    /// the memory out by them (a `blockCount` of −1 once trapped in the Flipper export).
    /// - Throws: ``NFCError/malformedDump(_:)`` for a `blockCount` outside ``blockCounts`` or a
    ///   `blockSize` outside ``blockSizes``, which no tag reports.
    static func fromJSON(_ keys: JSONKeys, uid: [UInt8]) throws(NFCError) -> ISO15693SystemInfo? {
        guard let stored = keys.iso15693 else { return nil }
        if let count = stored.blockCount, !blockCounts.contains(count) {
            throw .malformedDump(
                "iso15693.blockCount \(count) is not a number of blocks an ISO 15693 tag reports (1–\(blockCounts.upperBound), "
                    + "ISO/IEC 15693-3 system information): correct it or leave the key out")
        }
        if let size = stored.blockSize, !blockSizes.contains(size) {
            throw .malformedDump(
                "iso15693.blockSize \(size) is not a block size an ISO 15693 tag reports (1–\(blockSizes.upperBound) bytes, "
                    + "ISO/IEC 15693-3 system information): correct it or leave the key out")
        }
        return ISO15693SystemInfo(uid: uid, dsfid: stored.dsfid, afi: stored.afi, blockCount: stored.blockCount,
                                  blockSize: stored.blockSize, icReference: stored.icReference,
                                  dsfidLocked: stored.dsfidLocked, afiLocked: stored.afiLocked)
    }

    private enum CodingKeys: String, CodingKey { case iso15693 }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONKeys.Stored(dsfid: dsfid, afi: afi, blockCount: blockCount, blockSize: blockSize,
                                             icReference: icReference, dsfidLocked: dsfidLocked, afiLocked: afiLocked),
                             forKey: .iso15693)
    }
}

extension FamilyDumpData {
    /// ISO 15693: what GET SYSTEM INFORMATION (or its EXTENDED form) said — DSFID, AFI, IC reference, size.
    public static func iso15693(_ system: ISO15693SystemInfo) -> FamilyDumpData { FamilyDumpData(system) }
}

extension TagDump {
    /// What GET SYSTEM INFORMATION said (DSFID, AFI, IC reference, size); nil for other families and a
    /// dump that has none. The ISO 15693 family's view of ``family``.
    public var iso15693System: ISO15693SystemInfo? { family.payload(as: ISO15693SystemInfo.self) }
}
