import Testing

@testable import NFCCore

/// `textLines()` and `String(textFile:)`: the text files NFCCore and the agent read (keys files, the
/// password file, `.eml`, serial lists), as an editor on Linux or Windows saves them.
@Suite struct TextLinesTests {
    @Test func linesEndAtLFCRLFOrCRAndBlankLinesKeepTheirNumbers() {
        #expect("a\nb\r\nc\rd".textLines() == ["a", "b", "c", "d"])
        #expect("a\r\n\r\nb\r\n".textLines() == ["a", "", "b", ""])
        // A form feed or U+2028 is no line end: line numbers stay as an editor shows them.
        #expect("a\u{0C}b\nc\u{2028}d".textLines() == ["a\u{0C}b", "c\u{2028}d"])
    }

    @Test func aByteOrderMarkFirstIsNoPartOfTheText() {
        #expect(String(textFile: [0xEF, 0xBB, 0xBF, 0x41, 0x0D, 0x0A]) == "A\r\n")
        #expect(String(textFile: [0x41, 0xEF, 0xBB, 0xBF]) == "A\u{FEFF}", "only a leading mark is dropped")
        #expect(String(textFile: []) == "")
    }
}
