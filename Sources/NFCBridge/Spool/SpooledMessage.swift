/// One event waiting in the spool for the broker: where it goes and what it says (marked
/// `buffered: true`: the copy a replay sends).
package struct SpooledMessage: Sendable, Equatable, Codable {
    /// The event topic.
    package var topic: String
    /// The event payload.
    package var payload: JSONValue
    /// When it entered the spool (milliseconds since 1970), for the spool's age in `health`.
    package var queuedAt: Int64

    /// Creates a message.
    package init(topic: String, payload: JSONValue, queuedAt: Int64) {
        self.topic = topic
        self.payload = payload
        self.queuedAt = queuedAt
    }

    /// The event's `seq`, when the payload carries one.
    package var seq: Int64? { payload["seq"]?.intValue }

    /// The event's `event_id`, when the payload carries one.
    package var eventID: String? { payload["event_id"]?.stringValue }
}
