/// What the pipeline gave an event: its `seq` and `event_id` (the ticket the journal returns; the
/// `seq` is never read back out of the encoded event).
package struct EventReceipt: Sendable, Equatable {
    /// The event's `seq`.
    package var seq: Int64
    /// The event's `event_id`.
    package var eventID: String
}
