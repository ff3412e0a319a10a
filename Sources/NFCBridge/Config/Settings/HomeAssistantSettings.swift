extension AgentConfiguration {
    /// Home Assistant discovery.
    package struct HomeAssistantSettings: Sendable, Equatable {
        /// Publish discovery documents.
        package var enabled = true
        /// The discovery prefix.
        package var prefix = "homeassistant"
        package init() {}

        /// The `homeassistant` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("homeassistant.enabled", \.homeAssistant.enabled, .bool),
            ConfigurationKey("homeassistant.prefix", \.homeAssistant.prefix, .topicPrefix),
        ]
    }
}
