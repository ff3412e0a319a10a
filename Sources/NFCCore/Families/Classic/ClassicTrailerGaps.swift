import FoundationEssentials

/// The parts of a MIFARE Classic dump's sector trailers whose value is not known: a key no dictionary
/// key opened, access bits never read. A dump keeps only 16-byte blocks, and a trailer read from a card
/// holds zeros where key A (never readable) or an unreadable key B sit (MF1S50yyX §8.7.2), so zeros
/// alone cannot tell "key 000000000000" from "key unknown" — these lists can.
///
/// They are the MIFARE Classic family's ``FamilyDumpPayload``. People see them as three facts of the
/// dump, `Sectors Without Key A`, `Sectors Without Access Bits`, `Sectors Without Key B`, each a list of
/// sector numbers and ranges (`0-3, 7`), written only when not empty; the JSON export keeps them as the
/// additive key `trailerGaps` (`{"accessBits": [..], "keyA": [..], "keyB": [..]}`), which its import
/// reads back — the facts are never parsed. They name only sectors whose trailer block is in the dump;
/// the unknown parts of such a trailer hold zeros. A sector whose trailer is missing is unread as a whole.
public struct ClassicTrailerGaps: FamilyDumpPayload {
    /// Sectors whose key A (trailer bytes 0–5) is unknown.
    public var keyA: Set<Int>
    /// Sectors whose access bits and general-purpose byte (trailer bytes 6–9) are unknown.
    public var accessBits: Set<Int>
    /// Sectors whose key B (trailer bytes 10–15) is unknown.
    public var keyB: Set<Int>

    /// Creates the lists.
    public init(keyA: Set<Int> = [], accessBits: Set<Int> = [], keyB: Set<Int> = []) {
        self.keyA = keyA
        self.accessBits = accessBits
        self.keyB = keyB
    }

    /// One part of a sector trailer, with the fact naming the sectors where it is unknown.
    public enum Part: CaseIterable, Sendable {
        case keyA, accessBits, keyB

        /// Byte range in the trailer block (MF1S50yyX §8.6.3: key A 0–5, access bits 6–8 plus the
        /// general-purpose byte 9, key B 10–15).
        public var bytes: Range<Int> {
            switch self {
            case .keyA: 0..<6
            case .accessBits: 6..<10
            case .keyB: 10..<16
            }
        }

        /// The fact key.
        public var factKey: String {
            switch self {
            case .keyA: "Sectors Without Key A"
            case .accessBits: "Sectors Without Access Bits"
            case .keyB: "Sectors Without Key B"
            }
        }
    }

    /// The sectors where `part` is unknown.
    public subscript(part: Part) -> Set<Int> {
        get {
            switch part {
            case .keyA: keyA
            case .accessBits: accessBits
            case .keyB: keyB
            }
        }
        set {
            switch part {
            case .keyA: keyA = newValue
            case .accessBits: accessBits = newValue
            case .keyB: keyB = newValue
            }
        }
    }

    /// True when `part` of `sector`'s trailer is unknown.
    public func isUnknown(_ part: Part, sector: Int) -> Bool {
        self[part].contains(sector)
    }

    /// True when nothing is listed.
    public var isEmpty: Bool { keyA.isEmpty && accessBits.isEmpty && keyB.isEmpty }

    /// The facts to store in a dump: one per non-empty list, in the order key A, access bits, key B.
    public var facts: [Fact] {
        Part.allCases.compactMap { part in
            self[part].isEmpty ? nil : Fact(key: part.factKey, value: Self.format(self[part]))
        }
    }

    /// `[0, 1, 2, 3, 7]` → `0-3, 7`.
    static func format(_ sectors: Set<Int>) -> String {
        var parts: [String] = []
        var sorted = sectors.sorted()[...]
        while let first = sorted.popFirst() {
            var last = first
            while sorted.first == last + 1 { last = sorted.removeFirst() }
            parts.append(first == last ? "\(first)" : "\(first)-\(last)")
        }
        return parts.joined(separator: ", ")
    }

    /// Sectors of the largest layout (4K: 32 + 8).
    static let maxSectors = 40
}

extension ClassicTrailerGaps {
    /// The JSON key and its value: sorted sector lists.
    struct JSONKeys: Codable {
        struct Lists: Codable {
            var accessBits: [Int]
            var keyA: [Int]
            var keyB: [Int]
        }

        var trailerGaps: Lists?
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONKeys(trailerGaps: .init(accessBits: accessBits.sorted(), keyA: keyA.sorted(), keyB: keyB.sorted()))
            .encode(to: encoder)
    }

    /// The gaps a JSON document's `trailerGaps` holds; nil when it has none.
    /// - Throws: ``NFCError/malformedDump(_:)`` for a sector number outside 0…39.
    static func fromJSON(_ keys: JSONKeys) throws -> ClassicTrailerGaps? {
        guard let lists = keys.trailerGaps else { return nil }
        for sector in lists.keyA + lists.accessBits + lists.keyB where !(0..<maxSectors).contains(sector) {
            throw NFCError.malformedDump("trailerGaps: sector \(sector) is not a sector number 0-\(maxSectors - 1)")
        }
        return ClassicTrailerGaps(keyA: Set(lists.keyA), accessBits: Set(lists.accessBits), keyB: Set(lists.keyB))
    }
}

extension FamilyDumpData {
    /// MIFARE Classic: the sector-trailer parts whose value no key revealed.
    public static func classic(_ gaps: ClassicTrailerGaps) -> FamilyDumpData { FamilyDumpData(gaps) }
}

extension TagDump {
    /// The MIFARE Classic trailer gaps (empty for other families). The Classic family's view of ``family``.
    public var classicTrailerGaps: ClassicTrailerGaps {
        family.payload(as: ClassicTrailerGaps.self) ?? ClassicTrailerGaps()
    }
}
