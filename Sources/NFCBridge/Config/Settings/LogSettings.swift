extension AgentConfiguration {
    /// Logging.
    package struct LogSettings: Sendable, Equatable {
        /// The lowest level written.
        package var level: LogLevel = .info
        package init() {}

        /// The `log` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("log.level", \.log.level, .choice)
        ]
    }
}

extension LogLevel: Encodable {}
