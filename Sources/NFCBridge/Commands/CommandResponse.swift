/// One response payload: `{"id":…,"status":"ok"|"error"|"waiting","data":{…},"error":{…}}`, with
/// `transaction` echoed when the request sent one (Zigbee2MQTT clients match on it). `data` is
/// always an object; `error` is present only with status `error`.
public struct CommandResponse: Sendable, Equatable {
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

    /// A success.
    public static func ok(id: JSONValue?, transaction: JSONValue?, data: [String: JSONValue]) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .ok, data: data, error: nil)
    }

    /// A failure.
    public static func failure(id: JSONValue?, transaction: JSONValue?, _ error: CommandError) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .error, data: error.data, error: error)
    }

    /// The intermediate "waiting for a tag" answer.
    public static func waiting(id: JSONValue?, transaction: JSONValue?, data: [String: JSONValue] = [:]) -> CommandResponse {
        CommandResponse(id: id, transaction: transaction, status: .waiting, data: data, error: nil)
    }

    /// The payload.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "id": id ?? .null,
            "status": .string(status.rawValue),
            "data": .object(data),
        ]
        if let transaction { members["transaction"] = transaction }
        if let error {
            members["error"] = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        }
        return .object(members)
    }

    /// Reads a payload back (the persisted result cache, tests).
    public init?(json: JSONValue) {
        guard let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)) else { return nil }
        self.status = status
        let id = json["id"]
        self.id = id == .null ? nil : id
        self.transaction = json["transaction"]
        self.data = json["data"]?.objectValue ?? [:]
        if let code = json["error"]?["code"]?.stringValue.flatMap(CommandErrorCode.init(rawValue:)) {
            self.error = CommandError(code, json["error"]?["message"]?.stringValue ?? "", data: data)
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
