import FoundationEssentials

/// The parts of a MIFARE Classic dump's sector trailers whose value is not known: a key no dictionary
/// key opened, access bits never read. A dump keeps only 16-byte blocks, and a trailer read from a card
/// holds zeros where key A (never readable) or an unreadable key B sit (MF1S50yyX §8.7.2), so zeros
/// alone cannot tell "key 000000000000" from "key unknown" — these lists can.
///
/// They travel as three facts of the dump (so JSON keeps them without a schema change, and people see
/// them): `Sectors Without Key A`, `Sectors Without Access Bits`, `Sectors Without Key B`, each a list
/// of sector numbers and ranges (`0-3, 7`), written only when not empty. They name only sectors whose
/// trailer block is in the dump; the unknown parts of such a trailer hold zeros. A sector whose trailer
/// is missing is unread as a whole. A dump without these facts knows every trailer it holds.
public struct ClassicTrailerGaps: Sendable, Hashable {
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

    /// The lists stored in `facts` (missing facts are empty lists).
    /// - Throws: ``NFCError/malformedDump(_:)`` when a value is not a list of sector numbers and ranges.
    public init(facts: [Fact]) throws {
        self.init()
        for part in Part.allCases {
            guard let value = facts.first(where: { $0.key == part.factKey })?.value else { continue }
            self[part] = try Self.parse(value, key: part.factKey)
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

    /// `0-3, 7` → `[0, 1, 2, 3, 7]`. Sector numbers are 0…39 (the largest layout, MF1S70yyX §8.6).
    static func parse(_ text: String, key: String) throws -> Set<Int> {
        var sectors = Set<Int>()
        guard !text.trimmingSpaces().isEmpty else { return sectors }
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
                .map { Int($0.trimmingSpaces()) }
            guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
                low >= 0, low <= high, high < maxSectors
            else {
                throw NFCError.malformedDump("\(key) '\(text)' is not a list of sector numbers 0-\(maxSectors - 1)")
            }
            sectors.formUnion(low...high)
        }
        return sectors
    }

    /// Sectors of the largest layout (4K: 32 + 8).
    static let maxSectors = 40
}
