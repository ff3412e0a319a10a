extension AgentConfiguration {
    /// Home Assistant discovery.
    public struct HomeAssistantSettings: Sendable, Equatable {
        /// Publish discovery documents.
        public var enabled = true
        /// The discovery prefix.
        public var prefix = "homeassistant"
        public init() {}

        /// The `homeassistant` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("homeassistant.enabled", \.homeAssistant.enabled, .bool),
            ConfigurationKey("homeassistant.prefix", \.homeAssistant.prefix, .topicPrefix),
        ]
    }
}
