/// Why a write, format or lock failed, and what had already reached the tag.
///
/// ``error`` is the ``NFCError`` (its ``NFCError/code`` is what callers publish). ``pagesWritten`` lists
/// the Type 2 pages (or Type 3 blocks) whose WRITE the tag acknowledged before the failure, in the order
/// they were written: empty means the tag was not changed. A tag pulled mid-write gives
/// ``NFCError/tagRemoved`` with the pages known written; the page in flight is not listed, as nobody
/// knows whether it reached the EEPROM. Type 4 writes go through UPDATE BINARY, which has no pages: the
/// list stays empty there.
public struct TagOperationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The underlying error.
    public var error: NFCError
    /// Pages (Type 2) or blocks (Type 3) acknowledged before the failure, in write order.
    public var pagesWritten: [Int]
    /// Where the error met the tag, when the error itself does not say (a MIFARE Classic key that
    /// does not open a sector: which key, sector and blocks); added to ``message``.
    public var detail: String?

    /// Creates an error.
    public init(_ error: NFCError, pagesWritten: [Int] = [], detail: String? = nil) {
        self.error = error
        self.pagesWritten = pagesWritten
        self.detail = detail
    }

    /// Wraps any error: an ``NFCError`` as is, cancellation as ``NFCError/userCanceled``, an already
    /// wrapped error keeps its own pages, anything else becomes ``NFCError/unsupportedOperation(_:)``
    /// with its description.
    public init(wrapping error: any Error, pagesWritten: [Int] = []) {
        switch error {
        case let wrapped as TagOperationError:
            self = wrapped
        case let nfc as NFCError:
            self.init(nfc, pagesWritten: pagesWritten)
        default:
            self.init(error.isNFCCancellation ? .userCanceled : .unsupportedOperation("\(error)"),
                      pagesWritten: pagesWritten)
        }
    }

    /// The stable code of ``error``.
    public var code: String { error.code }

    /// The message of ``error`` and the ``detail``, plus the pages that were written when there are any.
    public var message: String {
        let message = error.message + (detail.map { ": \($0)" } ?? "")
        guard !pagesWritten.isEmpty else { return message }
        return message + " (pages written before the failure: "
            + pagesWritten.map(String.init).joined(separator: ", ") + ")"
    }

    public var description: String { "\(code): \(message)" }
}
