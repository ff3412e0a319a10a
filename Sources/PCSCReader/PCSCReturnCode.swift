import CPCSCLite
import NFCCore

/// A pcsc-lite return code (`SCARD_*`, PCSC/pcsclite.h) and the one place where it becomes an ``NFCError``.
struct PCSCReturnCode: Error, Equatable {
    /// The `LONG` an `SCard*` call returned.
    var rawValue: Int

    init(_ rawValue: LONG) { self.rawValue = Int(rawValue) }

    var isSuccess: Bool { rawValue == Int(SCARD_S_SUCCESS) }

    /// pcsc-lite's own text (`pcsc_stringify_error`) with the code in hex.
    var text: String {
        let name = String(cString: pcsc_stringify_error(LONG(rawValue)))
        return "\(name) (0x\(String(UInt32(truncatingIfNeeded: rawValue), radix: 16, uppercase: true)))"
    }

    /// True when pcscd itself is gone: stopped, restarted, or never started. The context must be
    /// established again. `SCARD_F_COMM_ERROR` ("RPC transport error") is what libpcsclite answers a call
    /// in flight when the daemon's socket closes under it.
    var meansNoService: Bool {
        rawValue == Int(SCARD_E_NO_SERVICE) || rawValue == Int(SCARD_E_SERVICE_STOPPED) || rawValue == Int(SCARD_F_COMM_ERROR)
    }

    /// True when the reader is gone (unplugged, or its driver lost it) or the reader list is empty.
    var meansReaderGone: Bool {
        rawValue == Int(SCARD_E_UNKNOWN_READER) || rawValue == Int(SCARD_E_READER_UNAVAILABLE)
            || rawValue == Int(SCARD_E_NO_READERS_AVAILABLE)
    }

    /// True when pcscd closed the client's connection before it answered: libpcsclite calls that
    /// `SCARD_W_SECURITY_VIOLATION` ("Access denied."). pcscd does it when its polkit check refuses the
    /// user, and a call that meets a daemon shutting down gets it too. Either way the reader is
    /// unavailable, not the RF field in error.
    var refusedByDaemon: Bool { rawValue == Int(SCARD_W_SECURITY_VIOLATION) }

    /// True when the card behind the handle left (or lost power).
    var meansCardGone: Bool {
        rawValue == Int(SCARD_W_REMOVED_CARD) || rawValue == Int(SCARD_E_NO_SMARTCARD)
            || rawValue == Int(SCARD_W_UNPOWERED_CARD) || rawValue == Int(SCARD_W_UNRESPONSIVE_CARD)
    }

    /// The mapping for a failed `call` on the reader `reader` (named in reader errors so the user knows
    /// which one).
    func nfcError(reader: String, call: String) -> NFCError {
        if meansNoService {
            return .readerUnavailable("\(reader): \(call) failed: \(text): pcscd is not running or stopped (start it: systemctl start pcscd)")
        }
        if meansReaderGone { return .readerUnavailable("\(reader): \(call) failed: \(text): the reader is gone") }
        if refusedByDaemon {
            return .readerUnavailable(
                "\(reader): \(call) failed: \(text): pcscd closed the connection, because it is stopping or because "
                    + "its polkit rules refuse this user (allow it in pcscd's polkit rules, docs/cli.md)")
        }
        if meansCardGone { return .tagRemoved }
        switch rawValue {
        case Int(SCARD_E_TIMEOUT): return .timeout
        case Int(SCARD_E_CANCELLED): return .userCanceled
        case Int(SCARD_E_SHARING_VIOLATION):
            return .readerUnavailable(
                "\(reader): \(call) failed: \(text): another program holds the card or reader exclusively "
                    + "(reader.pcsc_share_mode: shared lets programs that also share it in)")
        case Int(SCARD_E_INVALID_HANDLE): return .tagRemoved
        default: return .rfError("\(call) on \(reader): \(text)")
        }
    }
}
