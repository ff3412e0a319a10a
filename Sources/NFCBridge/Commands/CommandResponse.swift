/// One response payload: `{"id":…,"status":"ok"|"error"|"waiting","data":{…},"error":{…}}`, with
/// `transaction` echoed when the request sent one (Zigbee2MQTT clients match on it). `data` is
/// always an object; `error` is present only with status `error`.
public struct CommandResponse: Sendable, Equatable, Encodable {
    /// Where a request stands.
    public enum Status: String, Sendable, Codable {
        /// Done: `data` holds the result. Final.
        case ok
        /// Failed: `error` says why. Final.
        case error
        /// Queued and waiting for a tag; an `ok` or `error` follows.
        case waiting
    }

    /// The request's `id` (nil when the request had no usable one).
    public var id: JSONValue?
    /// The request's `transaction`, when sent.
    public var transaction: JSONValue?
    /// The status.
    public var status: Status
    /// The result (or facts about a failure, such as `pages_written`).
    public var data: [String: JSONValue]
    /// The failure.
    public var error: CommandError?
    /// `true` on a final result sent again for a repeated `id` (from the result cache): nothing
    /// was done this time. Written only when true.
    public var replayed = false

    /// A success.
    public static func ok(id: JSONValue?, transaction: JSONValue?, data: [String: JSONValue]) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .ok, data: data, error: nil)
    }

    /// The success of a command that acted on a tag: its outcome, encoded here, once, as `data`.
    /// Throws `read_failed` (dump) or `write_failed` when it cannot be encoded (a dump's JSON export).
    static func ok(id: JSONValue?, transaction: JSONValue?, _ outcome: any CommandOutcome, of command: CommandName)
        throws(CommandError) -> CommandResponse
    {
        let data: [String: JSONValue]?
        do {
            data = try JSONValueEncoder().encode(outcome).objectValue
        } catch {
            let code: CommandErrorCode = command == .dump ? .readFailed : .writeFailed
            throw CommandError(code, "the result of \(command.rawValue) could not be encoded: \(error)")
        }
        return .ok(id: id, transaction: transaction, data: data ?? [:])
    }

    /// A failure.
    public static func failure(id: JSONValue?, transaction: JSONValue?, _ error: CommandError) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .error, data: JSONValueEncoder.members(of: error.details), error: error)
    }

    /// The intermediate "waiting for a tag" answer.
    public static func waiting(id: JSONValue?, transaction: JSONValue?, data: [String: JSONValue] = [:]) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .waiting, data: data, error: nil)
    }

    enum CodingKeys: String, CodingKey { case id, status, data, transaction, error, replayed }

    /// The payload: `id` (`null` when the request had none), `status`, `data`, and `transaction`
    /// and `error` when there are.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id ?? .null, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(data, forKey: .data)
        try container.encodeIfPresent(transaction, forKey: .transaction)
        try container.encodeIfPresent(error.map { ErrorPayload(code: $0.code.rawValue, message: $0.message) }, forKey: .error)
        if replayed { try container.encode(true, forKey: .replayed) }
    }

    /// The payload as a JSON value (the persisted result cache, tests).
    public var json: JSONValue { (try? JSONValueEncoder().encode(self)) ?? .null }

    /// Reads a payload back (the persisted result cache, tests).
    public init?(json: JSONValue) {
        guard let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)) else { return nil }
        self.status = status
        let id = json["id"]
        self.id = id == .null ? nil : id
        self.transaction = json["transaction"]
        self.data = json["data"]?.objectValue ?? [:]
        self.replayed = json["replayed"] == .bool(true)
        if let code = json["error"]?["code"]?.stringValue.flatMap(CommandErrorCode.init(rawValue:)) {
            let details = (try? JSONValueDecoder().decode(CommandErrorDetails.self, from: .object(data))) ?? CommandErrorDetails()
            self.error = CommandError(code, json["error"]?["message"]?.stringValue ?? "", details: details)
        } else {
            self.error = nil
        }
    }

    /// Creates a response.
    public init(id: JSONValue?, transaction: JSONValue?, status: Status, data: [String: JSONValue], error: CommandError?) {
        self.id = id
        self.transaction = transaction
        self.status = status
        self.data = data
        self.error = error
    }
}
