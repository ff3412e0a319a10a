import FoundationEssentials
import NFCCore

extension AgentConfiguration {
    /// Feedback to the person at the reader (docs/readers.md, "Feedback at the reader"): what the reader's
    /// LED and buzzer show for each outcome, and a program of the board's own (`feedback.exec`).
    package struct FeedbackSettings: Sendable, Equatable {
        /// The light when a tag is scanned; nil: the reader's LED is left alone.
        package var onScanLight: IndicatorSignal.Light?
        /// Beeps when a tag is scanned.
        package var onScanBeeps = 0
        /// The signals for an encode job's tag results (`feedback.on_job.ok` / `failed` / `refused`).
        package var onJobOK = FeedbackRule()
        package var onJobFailed = FeedbackRule()
        package var onJobRefused = FeedbackRule()
        /// The signals for a tap's trust verdict (`feedback.on_trust.trusted` / `untrusted`), shown
        /// instead of `on_scan` for a tap that has a `trust` verdict.
        package var onTrusted = FeedbackRule()
        package var onUntrusted = FeedbackRule()
        /// The program run for every feedback (argv, no shell); nil: none.
        package var exec: [String]?
        /// How long `exec` may run before it is killed (SIGKILL), in milliseconds.
        package var execTimeoutMilliseconds = 2000
        package init() {}

        /// The signal for a scan, nil when none is configured.
        package var onScan: IndicatorSignal? {
            onScanLight.map { IndicatorSignal(light: $0, beeps: onScanBeeps) } ?? (onScanBeeps > 0 ? IndicatorSignal(light: .off, beeps: onScanBeeps) : nil)
        }

        /// The `feedback` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("feedback.on_scan.light", \.feedback.onScanLight, .choice),
            ConfigurationKey("feedback.on_scan.beeps", \.feedback.onScanBeeps, .int(in: 0...IndicatorSignal.maximumBeeps)),
            ConfigurationKey("feedback.on_job.ok.light", \.feedback.onJobOK.light, .choice),
            ConfigurationKey("feedback.on_job.ok.beeps", \.feedback.onJobOK.beeps, .int(in: 0...IndicatorSignal.maximumBeeps)),
            ConfigurationKey("feedback.on_job.failed.light", \.feedback.onJobFailed.light, .choice),
            ConfigurationKey("feedback.on_job.failed.beeps", \.feedback.onJobFailed.beeps, .int(in: 0...IndicatorSignal.maximumBeeps)),
            ConfigurationKey("feedback.on_job.refused.light", \.feedback.onJobRefused.light, .choice),
            ConfigurationKey("feedback.on_job.refused.beeps", \.feedback.onJobRefused.beeps, .int(in: 0...IndicatorSignal.maximumBeeps)),
            ConfigurationKey("feedback.on_trust.trusted.light", \.feedback.onTrusted.light, .choice),
            ConfigurationKey("feedback.on_trust.trusted.beeps", \.feedback.onTrusted.beeps, .int(in: 0...IndicatorSignal.maximumBeeps)),
            ConfigurationKey("feedback.on_trust.untrusted.light", \.feedback.onUntrusted.light, .choice),
            ConfigurationKey("feedback.on_trust.untrusted.beeps", \.feedback.onUntrusted.beeps, .int(in: 0...IndicatorSignal.maximumBeeps)),
            ConfigurationKey("feedback.exec", \.feedback.exec, .argv),
            ConfigurationKey("feedback.exec_timeout_ms", \.feedback.execTimeoutMilliseconds, .int(in: 10...60_000)),
        ]
    }
}

/// One `feedback` rule: a light and beeps (`{light: red, beeps: 2}`), as `feedback.on_scan` has.
package struct FeedbackRule: Sendable, Equatable {
    /// The light; nil: the reader's LED is left alone.
    package var light: IndicatorSignal.Light?
    /// Beeps.
    package var beeps = 0
    package init(light: IndicatorSignal.Light? = nil, beeps: Int = 0) {
        (self.light, self.beeps) = (light, beeps)
    }

    /// The signal, nil when neither a light nor beeps are configured.
    package var signal: IndicatorSignal? {
        light.map { IndicatorSignal(light: $0, beeps: beeps) } ?? (beeps > 0 ? IndicatorSignal(light: .off, beeps: beeps) : nil)
    }
}

extension ConfigurationRule where Value == [String] {
    /// A program and its arguments (no shell): a list of 1 to 32 non-empty strings, the first the
    /// absolute path of an executable file.
    static var argv: Self {
        Self { value, _ throws(ConfigurationError) in
            let items = try value.strings()
            guard (1...32).contains(items.count) else { throw value.failure("must list the program and at most 31 arguments") }
            guard let program = items.first, program.hasPrefix("/"), FileManager.default.isExecutableFile(atPath: program) else {
                throw value.failure(
                    "the first item must be the absolute path of an executable program, got \(ConfigurationError.quoted(items.first ?? ""))")
            }
            return items
        }
    }
}

extension ConfigurationValue {
    /// A list of non-empty strings.
    func strings() throws(ConfigurationError) -> [String] {
        guard case let .sequence(items, _) = node else { throw failure("expected a list, found \(node.kindDescription)") }
        var values: [String] = []
        for item in items { values.append(try ConfigurationValue(node: item, key: key, source: source).nonEmptyString()) }
        return values
    }
}
