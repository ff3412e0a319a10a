/// Turns OpenSSL's thread-local error queue into an ``NFCError/cryptoFailure(_:)``.
enum OpenSSLError {
    /// The failure of `operation`, with the oldest queued OpenSSL error text; the queue is emptied so a
    /// later failure does not report a stale reason.
    static func failure(_ operation: String, _ lib: LibCrypto) -> NFCError {
        let code = lib.ERR_get_error()
        lib.ERR_clear_error()
        guard code != 0 else { return .cryptoFailure(operation) }
        var text = [CChar](repeating: 0, count: 256)
        lib.ERR_error_string_n(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .cryptoFailure("\(operation): \(reason)")
    }
}
