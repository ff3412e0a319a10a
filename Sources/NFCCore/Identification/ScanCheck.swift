/// Checks a scan (identification + NDEF read) before it is published: was it spoilt by the link, and
/// does it contradict itself? A lost answer on the reader link looks like a tag's refusal or silence
/// (libnfc folds a NAK, a CRC error and a lost frame into `NFC_ERFTRANS`), so a scan that met one may
/// be wrong; the scanner reads the tag again, a bounded number of times, while it stays.
public enum ScanCheck {
    /// Errors that may come from the link rather than from the tag (a lost or garbled answer, a
    /// timeout), so that reading again may well succeed. ``NFCError/tagRemoved`` is one: a lost answer
    /// to a re-select looks like it, and the scanner's re-select tells whether the tag really left.
    public static func mayBeTransient(_ error: NFCError) -> Bool {
        switch error {
        case .timeout, .rfError, .crcMismatch, .invalidResponse, .tagRemoved, .commandRefused: true
        default: false
        }
    }

    /// Why the scan of `info` with NDEF result `ndef` should be read again, or nil when it can stand.
    /// May send a few commands (READ of the capability container or of the AUTH0 page) when the result
    /// looks contradictory; the tag is ACTIVE again afterwards. Throws only cancellation.
    public static func doubt(info: CardInfo, ndef: NDEFReadResult, transport: some TagTransport) async throws -> String? {
        if case let .unreadable(error) = ndef, error != .authenticationRequired, mayBeTransient(error) {
            return "NDEF read failed (\(error.code))"
        }
        guard Type2Product.forCardInfo(info) != nil else { return nil }
        return try await Type2ScanCheck.doubt(info: info, ndef: ndef, transport: transport)
    }
}
