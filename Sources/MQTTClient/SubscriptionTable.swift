/// One remembered subscription.
struct Subscription: Sendable, Hashable {
    var qos: MQTTQoS
    var options: MQTTSubscriptionOptions
}

/// The subscriptions the client restores after every CONNACK, in the order they were first made
/// (a later `subscribe` to the same filter replaces its QoS/options but keeps its place).
struct SubscriptionTable: Sendable {
    private var order: [String] = []
    private var items: [String: Subscription] = [:]

    /// Adds or replaces the subscription for `filter`.
    mutating func set(_ filter: String, _ subscription: Subscription) {
        if items.updateValue(subscription, forKey: filter) == nil { order.append(filter) }
    }

    /// Forgets `filter`.
    mutating func remove(_ filter: String) {
        if items.removeValue(forKey: filter) != nil { order.removeAll { $0 == filter } }
    }

    /// All subscriptions, oldest first.
    var entries: [(filter: String, subscription: Subscription)] {
        order.compactMap { filter in items[filter].map { (filter, $0) } }
    }
}
