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

