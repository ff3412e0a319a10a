/// One response payload: `{"id":…,"status":"ok"|"error"|"waiting","data":{…},"error":{…}}`, with
/// `transaction` echoed when the request sent one (Zigbee2MQTT clients match on it). `data` is
/// always an object; `error` is present only with status `error`. Typed until ``payload`` encodes it.
package struct CommandResponse: Sendable, Equatable, Encodable {
    /// Where a request stands.
    package enum Status: String, Sendable, Codable {
        /// Done: `data` holds the result. Final.
        case ok
        /// Failed: `error` says why. Final.
        case error
        /// Queued and waiting for a tag; an `ok` or `error` follows.
        case waiting
    }

    /// The request's `id` (nil when the request had no usable one).
    package var id: RequestID?
    /// The request's `transaction`, when sent.
    package var transaction: TransactionID?
    /// The status.
    package var status: Status
    /// The result (or facts about a failure, such as `pages_written`).
    package var data: ResponseData
    /// The failure.
    package var error: CommandError?
    /// `true` on a final result sent again for a repeated `id` (from the result cache): nothing
    /// was done this time. Written only when true.
    package var replayed = false

    /// A success with `data`.
    package static func ok(id: RequestID?, transaction: TransactionID?, _ data: ResponseData) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .ok, data: data, error: nil)
    }

    /// The success of a command that acted on a tag: its outcome, encoded with the response, once.
    static func ok(id: RequestID?, transaction: TransactionID?, _ outcome: any CommandOutcome, of command: CommandName)
        -> CommandResponse
    {
        .ok(id: id, transaction: transaction, .outcome(outcome, of: command))
    }

    /// A failure.
    package static func failure(id: RequestID?, transaction: TransactionID?, _ error: CommandError) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .error, data: .failure(error.details), error: error)
    }

    /// The intermediate "waiting for a tag" answer.
    package static func waiting(id: RequestID?, transaction: TransactionID?, seconds: Double) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .waiting, data: .waiting(seconds: seconds), error: nil)
    }

    enum CodingKeys: String, CodingKey { case id, status, data, transaction, error, replayed }

    /// The payload: `id` (`null` when the request had none), `status`, `data`, and `transaction`
    /// and `error` when there are.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
        try container.encode(status, forKey: .status)
        try container.encode(data, forKey: .data)
        try container.encodeIfPresent(transaction, forKey: .transaction)
        try container.encodeIfPresent(error.map { ErrorPayload(code: $0.code.rawValue, message: $0.message) }, forKey: .error)
        if replayed { try container.encode(true, forKey: .replayed) }
    }

    /// The payload's bytes and the response they are: the one place a response is encoded. An
    /// outcome that cannot be encoded (only a dump's JSON export could fail) is answered as that
    /// failure instead — `read_failed` for a dump, `write_failed` for a command that changed the tag —
    /// and that failure is the response (the one the result cache keeps).
    package func encoded() -> (response: CommandResponse, payload: [UInt8]) {
        do {
            return (self, try JSONWire.bytes(self))
        } catch {
            // The other kinds of data only forward to their containers: not expected to throw.
            guard case let .outcome(_, command) = data else { return (self, JSONWire.payload(self)) }
            let code: CommandErrorCode = command == .dump ? .readFailed : .writeFailed
            let failure = CommandResponse.failure(
                id: id, transaction: transaction, CommandError(code, "the result of \(command.rawValue) could not be encoded: \(error)"))
            return (failure, JSONWire.payload(failure))
        }
    }

    /// The payload's bytes (``encoded()``).
    package var payload: [UInt8] { encoded().payload }

    /// Creates a response.
    package init(id: RequestID?, transaction: TransactionID?, status: Status, data: ResponseData, error: CommandError?) {
        self.id = id
        self.transaction = transaction
        self.status = status
        self.data = data
        self.error = error
    }
}
