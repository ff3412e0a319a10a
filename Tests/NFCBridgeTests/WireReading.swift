import Foundation

@testable import NFCBridge

// Tests read the agent's typed values back as JSON, the way a client reads the wire.

extension CommandResponse {
    /// The payload as a JSON value.
    var json: JSONValue { (try? JSONValue(parsing: Data(payload))) ?? .null }
}

extension CommandRouter.LockAudit {
    /// The audit record as event fields: `id`, `uid`, `status`, `data`, `error`, `command`.
    var fields: [String: JSONValue] { (try? JSONValue(parsing: Data(JSONWire.bytes(self))))?.objectValue ?? [:] }
}

extension OutboundMessage {
    /// The payload parsed as JSON, when it is JSON.
    var json: JSONValue? { try? JSONValue(parsing: Data(payload)) }
}

extension TagPresence {
    /// The retained `tag` payload as a JSON value.
    var json: JSONValue { (try? JSONValue(parsing: Data(JSONWire.bytes(self)))) ?? .null }
}

extension HealthReport {
    /// The retained `health` payload as a JSON value.
    var json: JSONValue { (try? JSONValue(parsing: Data(JSONWire.bytes(self)))) ?? .null }
}

extension InMemoryPublisher {
    /// Waits for a message on `topic` after position `index` whose JSON payload satisfies `predicate`.
    @discardableResult
    func waitForJSON(
        on topic: String, after index: Int = -1, where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> (index: Int, json: JSONValue) {
        let (position, message) = await waitForMessage(after: index) { message in
            message.topic == topic && message.json.map(predicate) == true
        }
        return (position, message.json ?? .null)
    }
}
