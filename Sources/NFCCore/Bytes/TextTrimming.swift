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
    /// LF, CR LF or CR, and nothing else (a form feed or U+2028 stays in its line, as editors count
    /// lines). Swift takes CR LF for one `Character`, which a split at `"\n"` never meets: a file
    /// saved on Windows would read as one line.
    package func textLines() -> [SubSequence] {
        split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }

    private func trimmed(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension Array where Element == UInt8 {
    /// These bytes without a leading UTF-8 byte-order mark (EF BB BF), which some Windows editors
    /// and spreadsheets ("CSV UTF-8") write first, for the text files NFCCore and the agent read.
    package var droppingByteOrderMark: ArraySlice<UInt8> {
        starts(with: [0xEF, 0xBB, 0xBF]) ? dropFirst(3) : self[...]
    }
}

extension String {
    /// The text of a file read as bytes: UTF-8 (a byte that is not becomes U+FFFD), without a leading
    /// byte-order mark, which would otherwise stick to the first line's first word.
    package init(textFile bytes: [UInt8]) {
        self.init(decoding: bytes.droppingByteOrderMark, as: UTF8.self)
    }
}
