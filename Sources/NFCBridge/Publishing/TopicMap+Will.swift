extension TopicMap {
    /// The will to register when connecting: `<base>/<id>/status` = `offline`, retained, QoS 1.
    package var will: OutboundMessage {
        OutboundMessage(topic: topic(.status), payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
    }
}
