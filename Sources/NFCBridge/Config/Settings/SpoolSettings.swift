extension AgentConfiguration {
    /// Spool bounds: the oldest buffered events are dropped (and counted) beyond them.
    package struct SpoolSettings: Sendable, Equatable {
        /// Most events kept.
        package var maxEvents = 10_000
        /// Most bytes kept on disk.
        package var maxBytes = 16 * 1024 * 1024
        /// Oldest event kept, in seconds (`spool.max_age_s`; default 7 days).
        package var maxAgeSeconds = 7 * 24 * 3600
        package init() {}

        /// The `spool` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("spool.max_events", \.spool.maxEvents, .int(in: 1...1_000_000)),
            ConfigurationKey("spool.max_bytes", \.spool.maxBytes, .int(in: 65_536...1_073_741_824)),
            ConfigurationKey("spool.max_age_s", \.spool.maxAgeSeconds, .int(in: 60...31_536_000)),
        ]
    }
}
