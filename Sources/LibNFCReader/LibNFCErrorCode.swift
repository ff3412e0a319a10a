import CNFC
import NFCCore

/// A libnfc return code (`NFC_E*`, nfc/nfc.h) and the one place where it becomes an ``NFCError``.
///
/// Most codes map one to one. `NFC_ERFTRANS` does not: libnfc folds every PN53x RF status (chip
/// timeout 01h, CRC 02h, parity 03h, invalid frame 13h, …) into it and keeps the status byte
/// private, so a Type 2 tag's NAK to an `InDataExchange` READ, a silent tag and a CRC error all
/// look alike. ``LibNFCSession`` settles those cases by asking the tag again (re-select or
/// presence check) before it reports `commandRefused`, `timeout`, `rfError` or `tagRemoved`;
/// ``nfcError(connstring:call:)`` gives the plain mapping for every other call.
struct LibNFCErrorCode: Error, Equatable {
    /// The negative `NFC_E*` value a libnfc call returned.
    var rawValue: Int32

    /// libnfc's names and meanings of its error codes (nfc/nfc.h, libnfc 1.8.0).
    private static let table: [Int32: (name: String, meaning: String)] = [
        NFC_EIO: ("NFC_EIO", "input/output error, the device may need to be re-opened"),
        NFC_EINVARG: ("NFC_EINVARG", "invalid argument"),
        NFC_EDEVNOTSUPP: ("NFC_EDEVNOTSUPP", "operation not supported by the device"),
        NFC_ENOTSUCHDEV: ("NFC_ENOTSUCHDEV", "no such device"),
        NFC_EOVFLOW: ("NFC_EOVFLOW", "buffer overflow"),
        NFC_ETIMEOUT: ("NFC_ETIMEOUT", "the reader did not answer in time"),
        NFC_EOPABORTED: ("NFC_EOPABORTED", "operation aborted"),
        NFC_ENOTIMPL: ("NFC_ENOTIMPL", "not implemented"),
        NFC_ETGRELEASED: ("NFC_ETGRELEASED", "target released"),
        NFC_ERFTRANS: ("NFC_ERFTRANS", "RF transmission error"),
        NFC_EMFCAUTHFAIL: ("NFC_EMFCAUTHFAIL", "MIFARE Classic authentication failed"),
        NFC_ESOFT: ("NFC_ESOFT", "software error"),
        NFC_ECHIP: ("NFC_ECHIP", "device's internal chip error"),
    ]

    /// `NFC_ERFTRANS` and friends, spelled as in nfc.h with libnfc's meaning.
    var text: String {
        if let entry = Self.table[rawValue] { return "\(entry.name) (\(entry.meaning))" }
        return "libnfc error \(rawValue)"
    }

    /// True when libnfc itself says the device is gone (`NFC_ENOTSUCHDEV`).
    ///
    /// `NFC_EIO` is not enough for that: pn532_uart returns it for a port that was closed (the
    /// read or write fails) and just as well for a frame that came late or garbled — an ACK
    /// where an answer was due, a preamble, length or checksum mismatch (pn532_uart_receive,
    /// pn53x_check_ack_frame in libnfc 1.8.0), which a slow serial line or a loaded host produces.
    /// ``LibNFCSession`` looks at the port and asks the chip before it calls one gone.
    var meansReaderGone: Bool { rawValue == NFC_ENOTSUCHDEV }

    /// True for `NFC_EIO`: the device may be gone, or a frame was lost or garbled on the way.
    var isIOError: Bool { rawValue == NFC_EIO }

    /// True when a failed select or presence check says nothing about the tag: the reader is gone
    /// or ``LibNFCAbortControl`` aborted the call. Anything else there means "no such tag here"
    /// (after `NFC_EIO` and `NFC_ETIMEOUT` are settled by asking the chip).
    var meansReaderGoneOrAborted: Bool { meansReaderGone || rawValue == NFC_EOPABORTED }

    /// The plain mapping, for calls whose `NFC_ERFTRANS` needs no second look.
    /// - Parameters:
    ///   - connstring: named in ``NFCError/readerUnavailable(_:)`` so the user knows which device.
    ///   - call: the libnfc function that failed, for the message.
    func nfcError(connstring: String, call: String) -> NFCError {
        switch rawValue {
        case NFC_ETIMEOUT: .timeout
        case NFC_ETGRELEASED: .tagRemoved
        case NFC_EOPABORTED: .userCanceled
        case NFC_EMFCAUTHFAIL: .authenticationFailed
        case NFC_EIO, NFC_ENOTSUCHDEV: .readerUnavailable("\(connstring): \(call) failed: \(text)")
        case NFC_EDEVNOTSUPP, NFC_ENOTIMPL: .unsupportedOperation("\(call) on \(connstring): \(text)")
        default: .rfError("\(call): \(text)")
        }
    }
}
