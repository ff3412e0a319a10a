import NFCCore

extension CommandRouter {
    /// Called with the outcome of every `lock` that was accepted (the agent publishes an event).
    package typealias LockAuditHandler = @Sendable (LockAudit) async -> Void

    /// What happened to a lock request, for the audit trail: the body of `event/lock` — the final
    /// response's fields (without `transaction`) plus `uid` and `command`.
    package struct LockAudit: Sendable, Equatable, Encodable {
        /// The request's id.
        package var id: RequestID
        /// The UID the request named.
        package var uid: [UInt8]
        /// The final response.
        package var response: CommandResponse

        enum CodingKeys: String, CodingKey { case uid, command }

        package func encode(to encoder: any Encoder) throws {
            var response = self.response
            response.transaction = nil
            try response.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(uid.hexString, forKey: .uid)
            try container.encode(CommandName.lock, forKey: .command)
        }
    }
}
