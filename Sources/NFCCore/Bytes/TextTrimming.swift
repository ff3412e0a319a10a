/// Trimming without Foundation's `CharacterSet` (which FoundationEssentials lacks), for the text
/// formats NFCCore reads and the agent's configuration files (`package`: not NFCCore's public API).
extension StringProtocol {
    /// Without leading and trailing spaces and tabs (Foundation's `.whitespaces`: not newlines).
    package func trimmingSpaces() -> String {
        trimmed { $0.isWhitespace && !$0.isNewline }
    }

    /// Without leading and trailing white space and newlines (Foundation's `.whitespacesAndNewlines`).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimmed(\.isWhitespace)
    }

    /// The lines of a text file, blank ones kept (so an index + 1 is the line number): split at
    /// LF, CR LF or CR. Swift takes CR LF for one `Character`, which a split at `"\n"` never meets:
    /// a file saved on Windows would read as one line.
    package func textLines() -> [SubSequence] {
        split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }

    private func trimmed(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}
