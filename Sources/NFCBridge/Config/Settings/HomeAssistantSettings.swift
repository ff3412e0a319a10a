extension AgentConfiguration {
    /// Home Assistant discovery.
    package struct HomeAssistantSettings: Sendable, Equatable {
        /// Publish discovery documents.
        package var enabled = true
        /// The discovery prefix.
        package var prefix = "homeassistant"
        /// Only taps whose `trust.verdict` is `trusted` reach the tag scanner and the `tag_scanned`
        /// trigger (docs/home-assistant.md, "Trusted taps only").
        package var trustedOnly = false
        package init() {}

        /// The `homeassistant` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("homeassistant.enabled", \.homeAssistant.enabled, .bool),
            ConfigurationKey("homeassistant.prefix", \.homeAssistant.prefix, .topicPrefix),
            ConfigurationKey("homeassistant.trusted_only", \.homeAssistant.trustedOnly, .bool),
        ]
    }
}
