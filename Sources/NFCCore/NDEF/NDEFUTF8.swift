extension String {
    /// UTF-8 text of an NDEF field: strict decoding throws `error`, relaxed decoding replaces bad
    /// sequences with U+FFFD.
    init(ndefUTF8 bytes: [UInt8], leniency: NDEFLeniency, orThrow error: @autoclosure () -> NFCError) throws(NFCError) {
        if let decoded = String(validating: bytes, as: UTF8.self) {
            self = decoded
        } else if leniency == .strict {
            throw error()
        } else {
            self = String(decoding: bytes, as: UTF8.self)
        }
    }
}
