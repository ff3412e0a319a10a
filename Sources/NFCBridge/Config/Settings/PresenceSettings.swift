extension AgentConfiguration {
    /// How presence turns into `scanned` / `removed` events.
    package enum PresenceMode: String, Sendable, Equatable, CaseIterable, Encodable {
        /// One `scanned` on arrival, one `removed` after the removal grace.
        case presence
        /// `scanned` again every `rearm_ms` while the tag stays.
        case `repeat`
    }

    /// Presence and debounce timings.
    package struct PresenceSettings: Sendable, Equatable {
        /// presence or repeat.
        package var mode: PresenceMode = .presence
        /// A tag is removed after this long without being seen (no flapping on a marginal read).
        package var removalGraceMilliseconds = 600
        /// In repeat mode, the period of repeated `scanned` events.
        package var rearmMilliseconds = 2000
        /// A re-tap of the same UID within this window of its last `scanned` is not reported again.
        package var minIntervalMilliseconds = 1000
        package init() {}

        /// The `presence` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("presence.mode", \.presence.mode, .choice),
            ConfigurationKey("presence.removal_grace_ms", \.presence.removalGraceMilliseconds, .int(in: 0...60_000)),
            ConfigurationKey("presence.rearm_ms", \.presence.rearmMilliseconds, .int(in: 100...86_400_000)),
            ConfigurationKey("presence.min_interval_ms", \.presence.minIntervalMilliseconds, .int(in: 0...86_400_000)),
        ]
    }
}
