import FoundationEssentials

/// Type 2 chip data read beside the pages, needed for complete Flipper / Proxmark3 files: the Type 2
/// family's ``FamilyDumpPayload``.
///
/// In the JSON export it is the additive keys `signature` (hex, when read), `counters` and `tearing`
/// (3 entries each, null where unknown; tearing flags as hex bytes) and `pagesTotal` (when known).
public struct Type2Extras: FamilyDumpPayload {
    /// READ_SIG answer (32 bytes) when the product supports it and the tag answered.
    public var signature: [UInt8]?
    /// READ_CNT values of counters 0, 1, 2 (nil where not supported or not read).
    public var counters: [UInt32?]
    /// CHECK_TEARING_EVENT values of counters 0, 1, 2 (nil where not supported or not read).
    public var tearing: [UInt8?]
    /// Total pages of the product's memory (readable or not).
    public var totalPages: Int?

    public init(signature: [UInt8]? = nil, counters: [UInt32?] = [nil, nil, nil], tearing: [UInt8?] = [nil, nil, nil],
                totalPages: Int? = nil) {
        self.signature = signature
        self.counters = counters
        self.tearing = tearing
        self.totalPages = totalPages
    }

    /// The JSON keys, as the export has always written them.
    struct JSONKeys: Codable {
        var counters: [UInt32?]?
        var pagesTotal: Int?
        var signature: String?
        var tearing: [String?]?
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONKeys(counters: counters, pagesTotal: totalPages, signature: signature?.hexString,
                     tearing: tearing.map { $0?.hexString }).encode(to: encoder)
    }

    /// The extras a JSON document records in its keys; nil when it has none of them. `pagesTotal` is
    /// checked here, where it enters, as the page numbers are (``Type2PageImage/checkPageNumbers(_:)``):
    /// the Flipper export writes that many pages.
    /// - Throws: ``NFCError/malformedDump(_:)`` when a value is not hex, a tearing flag is not one byte,
    ///   or `pagesTotal` is outside 1 ... ``Type2PageImage/maxPages``.
    static func fromJSON(_ keys: JSONKeys) throws -> Type2Extras? {
        guard keys.signature != nil || keys.counters != nil || keys.tearing != nil || keys.pagesTotal != nil else { return nil }
        if let total = keys.pagesTotal, !(1...Type2PageImage.maxPages).contains(total) {
            throw NFCError.malformedDump(
                "pagesTotal \(total) is not a number of pages a Type 2 tag has (1–\(Type2PageImage.maxPages), Flipper's "
                    + "MF_ULTRALIGHT_MAX_PAGE_NUM, above every product's memory): correct it or leave the key out")
        }
        func hex(_ text: String, _ field: String) throws -> [UInt8] {
            guard let bytes = [UInt8](hex: text) else { throw NFCError.malformedDump("\(field) '\(text)' is not hex") }
            return bytes
        }
        return Type2Extras(
            signature: try keys.signature.map { try hex($0, "signature") },
            counters: keys.counters ?? [nil, nil, nil],
            tearing: try (keys.tearing ?? [nil, nil, nil]).map { text in
                try text.map { text in
                    let byte = try hex(text, "tearing")
                    guard byte.count == 1 else { throw NFCError.malformedDump("tearing '\(text)' is not one byte") }
                    return byte[0]
                }
            },
            totalPages: keys.pagesTotal)
    }
}

extension FamilyDumpData {
    /// Type 2 chip data: originality signature, counters, tearing flags, total pages.
    public static func type2(_ extras: Type2Extras) -> FamilyDumpData { FamilyDumpData(extras) }
}

extension TagDump {
    /// Type 2 chip data (signature, counters, tearing); nil for other families. The Type 2 family's view
    /// of ``family``.
    public var type2: Type2Extras? {
        get { family.payload(as: Type2Extras.self) }
        set { family = FamilyDumpData(newValue) }
    }
}
