/// "Did you mean" for a misspelt name: the configuration's keys and the CLI's options.
package enum Spelling {
    /// Names longer than this get no suggestion: the distance costs their length times the
    /// candidate's, and no key or option is anywhere near it.
    static let longestName = 128

    /// The candidate closest to `name`, if one is close enough to be a likely typo: at most two
    /// edits, or a quarter of the name's length for long names.
    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let typed = Array(name.utf8)
        guard typed.count <= longestName else { return nil }
        let scored = candidates.map { ($0, editDistance(typed, Array($0.utf8))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, typed.count / 4) else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
