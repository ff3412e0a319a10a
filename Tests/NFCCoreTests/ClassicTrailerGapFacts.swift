@testable import NFCCore

/// Reads the `Sectors Without …` facts back into lists — only for tests, which check that the facts
/// people see say what the typed ``ClassicTrailerGaps`` say. NFCCore itself never parses facts: a JSON
/// dump's gaps come from its `trailerGaps` key.
extension ClassicTrailerGaps {
    /// The lists the facts show (missing facts are empty lists).
    init(facts: [Fact]) throws {
        self.init()
        for part in Part.allCases {
            guard let value = facts.first(where: { $0.key == part.factKey })?.value else { continue }
            self[part] = try Self.parse(value, key: part.factKey)
        }
    }

    /// `0-3, 7` → `[0, 1, 2, 3, 7]`, the inverse of ``format(_:)``. Sector numbers are 0…39.
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
}
