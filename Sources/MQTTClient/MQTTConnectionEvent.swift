/// What happened to the connection, in order, on `MQTTClient.events`.
///
/// A typical outage reads: `.connected` … `.disconnected(.connectionLost)`, `.reconnecting(1, 0.5 s)`,
/// `.connectionFailed(.brokerUnreachable)`, `.reconnecting(2, 1 s)`, …, `.connected`.
public enum MQTTConnectionEvent: Sendable, Hashable {
    /// CONNACK accepted and every remembered subscription re-acknowledged by the broker: from now on
    /// messages flow. `sessionPresent` is the CONNACK flag (the broker still had our session).
    case connected(sessionPresent: Bool)
    /// An established connection ended. `nil` means this client disconnected on purpose.
    case disconnected(MQTTClientError?)
    /// One connection attempt failed (TCP, TLS or a refusing CONNACK).
    case connectionFailed(MQTTClientError)
    /// The client will try again after `delay`; `attempt` counts retries since the last success.
    case reconnecting(attempt: Int, delay: Duration)
    /// Another client uses this client's id: the broker closed the session, shortly after its
    /// CONNACK, `TakeoverWatch.threshold` times in a row (`takeovers` so far). Reported once per
    /// episode; from now on each takeover waits 5 s, doubling up to 5 min (`retryIn` is the first
    /// wait), instead of taking the session straight back (`MQTTClient.duplicateClientIDTakeovers`).
    case duplicateClientID(takeovers: Int, retryIn: Duration)
    /// The node `broker` (its URL) refused MQTT 5 — CONNACK 0x84, or the connection closed after the
    /// CONNECT without a CONNACK, as RabbitMQ 3.10 does — and accepted MQTT 3.1.1: from now on this
    /// client speaks 3.1.1 to it (``MQTTConfiguration/fallsBackToV311``). Once per node.
    case fellBackToV311(broker: String)
}
