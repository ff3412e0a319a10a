import Testing
import NFCCore

/// Hex literal → bytes for the NDEF tables; a malformed literal fails the test that uses it.
func ndefHex(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    guard let bytes = [UInt8](hex: text) else {
        Issue.record("bad hex literal in the test table: \(text)", sourceLocation: sourceLocation)
        return []
    }
    return bytes
}

/// ASCII/UTF-8 text → bytes.
func ndefASCII(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Decodes `hex` and returns the message, or the NDEF error's detail text.
func ndefDecodeError(_ hex: String, leniency: NDEFLeniency = .strict) -> String? {
    do {
        _ = try NDEFMessage(bytes: ndefHex(hex), leniency: leniency)
        return nil
    } catch {
        return error.message
    }
}
