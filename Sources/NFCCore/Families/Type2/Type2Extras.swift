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

    /// The READ_SIG answer lengths of the products (``Type2Product/signatureLength``).
    static let signatureLengths = Set((Type2Product.baseRows + Type2Product.productRows).compactMap(\.signatureLength))

    /// The largest value of a 24-bit NFC counter (READ_CNT, NTAG213/215/216 datasheet §10.6).
    static let maximumCounter: UInt32 = 0xFF_FFFF

    /// The JSON keys, as the export has always written them.
    struct JSONKeys: Codable {
        /// Wider than a counter, so that a value out of range is refused by ``fromJSON(_:)`` by name.
        var counters: [Int64?]?
        var pagesTotal: Int?
        var signature: String?
        var tearing: [String?]?
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONKeys(counters: counters.map { $0.map(Int64.init) }, pagesTotal: totalPages, signature: signature?.hexString,
                     tearing: tearing.map { $0?.hexString }).encode(to: encoder)
    }

    /// The extras a JSON document records in its keys; nil when it has none of them. `pagesTotal` is
    /// checked here, where it enters, as the page numbers are (``Type2PageImage/checkPageNumbers(_:)``):
    /// the Flipper export writes that many pages.
    /// - Throws: ``NFCError/malformedDump(_:)`` when a value is not hex, the signature is not 32 or 48 bytes,
    ///   `counters` or `tearing` does not have 3 entries, a counter is not 24 bits, a tearing flag is not
    ///   one byte, or `pagesTotal` is outside 1 ... ``Type2PageImage/maxPages``: every export writes
    ///   these fields at their fixed sizes, and would otherwise put zeros or a wrapped value in their place.
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
        let signature = try keys.signature.map { try hex($0, "signature") }
        if let signature, !Self.signatureLengths.contains(signature.count) {
            throw NFCError.malformedDump("signature '\(keys.signature ?? "")' is not a READ_SIG answer: 32 bytes "
                                            + "(secp128r1: NTAG21x, Ultralight EV1) or 48 (secp192r1: Ultralight AES, NTAG 22x DNA)")
        }
        for (field, count) in [("counters", keys.counters?.count), ("tearing", keys.tearing?.count)] {
            if let count, count != 3 {
                throw NFCError.malformedDump("\(field) has \(count) entries, not 3 (counters 0, 1, 2; null where unknown)")
            }
        }
        let counters = try (keys.counters ?? [nil, nil, nil]).enumerated().map { index, value in
            try value.map { value in
                guard let counter = UInt32(exactly: value), counter <= Self.maximumCounter else {
                    throw NFCError.malformedDump("counters.\(index) \(value) is not a 24-bit counter value (0–16777215, READ_CNT)")
                }
                return counter
            }
        }
        return Type2Extras(
            signature: signature,
            counters: counters,
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
