extension AgentConfiguration {
    /// Logging.
    public struct LogSettings: Sendable, Equatable {
        /// The lowest level written.
        public var level: LogLevel = .info
        public init() {}

        /// The `log` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("log.level", \.log.level, .choice)
        ]
    }
}

extension LogLevel: Encodable {}
