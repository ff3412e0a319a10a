import NFCCore

/// Why the person at the reader gets a signal.
package enum FeedbackOccasion: String, Sendable, Equatable {
    /// A tag was scanned (`feedback.on_scan`).
    case scan
    /// A controller asked for it (`request/feedback`: the door's verdict, a job's result).
    case request
}

/// What a feedback did: the reader's LED and buzzer, and the board's program.
package struct FeedbackOutcome: Sendable, Equatable, Encodable {
    /// `ok`, `unsupported` (this reader has no LED or buzzer NFCBridge can reach) or `failed`.
    package var reader: String
    /// Why the reader part did not happen; absent when it did.
    package var readerMessage: String?
    /// `ok` (exit 0), `failed` (another exit status), `killed` (timed out), `skipped` (one still ran),
    /// `error` (could not start), or `none` (`feedback.exec` not set).
    package var exec: String
    /// The program's exit status, when it exited.
    package var execStatus: Int32?

    enum CodingKeys: String, CodingKey { case reader, readerMessage = "reader_message", exec, execStatus = "exec_status" }

    /// True when something reached the person at the reader.
    package var didSignal: Bool { reader == "ok" || exec == "ok" }
}

/// Drives feedback (docs/readers.md, "Feedback at the reader"): the reader's own LED and buzzer
/// where the device has them (``IndicatorDriving``: the PC/SC profiles with them), and
/// `feedback.exec`. Neither waits on the reader's polling: the device runs the LED command on its own
/// thread between polls, the program on the exec thread.
package struct FeedbackDriver: Sendable {
    let settings: AgentConfiguration.FeedbackSettings
    let device: any ReaderDevice
    let agentID: String
    let logger: AgentLogger
    private let exec: FeedbackExec?

    package init(settings: AgentConfiguration.FeedbackSettings, device: any ReaderDevice, agentID: String, logger: AgentLogger) {
        self.settings = settings
        self.device = device
        self.agentID = agentID
        self.logger = logger
        exec = settings.exec.map { FeedbackExec(argv: $0, timeoutMilliseconds: settings.execTimeoutMilliseconds) }
    }

    /// The configured signal for a scan of `uid`, if any (`feedback.on_scan`).
    package func tagScanned(uid: [UInt8]) async {
        guard let signal = settings.onScan else { return }
        let outcome = await show(signal, for: .scan, uid: uid)
        if outcome.reader == "failed" { logger.warning("feedback on scan: \(outcome.readerMessage ?? "the reader refused it")") }
    }

    /// Shows `signal` on the reader and runs `feedback.exec` with it.
    package func show(_ signal: IndicatorSignal, for occasion: FeedbackOccasion, uid: [UInt8]? = nil) async -> FeedbackOutcome {
        var outcome = FeedbackOutcome(reader: "unsupported", exec: "none")
        if let indicating = device as? any IndicatorDriving {
            do {
                try await indicating.indicate(signal)
                outcome.reader = "ok"
            } catch let error as NFCError {
                if case .unsupportedOperation = error { outcome.reader = "unsupported" } else { outcome.reader = "failed" }
                outcome.readerMessage = error.message
            } catch {
                outcome.reader = "failed"
                outcome.readerMessage = "\(error)"
            }
        } else {
            outcome.readerMessage = "this reader's backend has no LED or buzzer NFCBridge can drive (libnfc: see docs/readers.md)"
        }
        if let exec {
            switch await exec.run(environment: FeedbackExec.environment(for: occasion, signal: signal, uid: uid, agentID: agentID)) {
            case let .exited(status):
                outcome.exec = status == 0 ? "ok" : "failed"
                outcome.execStatus = status
            case .killed:
                outcome.exec = "killed"
                logger.warning("feedback.exec \(exec.argv[0]) outlived feedback.exec_timeout_ms (\(exec.timeoutMilliseconds) ms) and was killed")
            case .skipped:
                outcome.exec = "skipped"
            case let .failed(reason):
                outcome.exec = "error"
                logger.warning("feedback.exec \(exec.argv[0]) could not be started: \(reason)")
            }
        }
        return outcome
    }
}
