import NFCCore

/// Why the person at the reader gets a signal.
package enum FeedbackOccasion: String, Sendable, Equatable {
    /// A tag was scanned (`feedback.on_scan`).
    case scan
    /// A controller asked for it (`request/feedback`: the door's verdict, a job's result).
    case request
    /// An encode job finished a tag (`feedback.on_job`).
    case job
    /// A tap got its trust verdict (`feedback.on_trust`).
    case trust
}

/// The `feedback.on_job` rule an encode job's tag result picks (the agent maps each
/// ``EncodeTagResult/Result`` to one: ``EncodeTagResult/Result/feedback``).
package enum JobFeedback: Sendable, Equatable {
    /// Encoded and verified.
    case ok
    /// The serial is spent, or the tag left mid-write.
    case failed
    /// Nothing was written.
    case refused
}

/// What a feedback did: the reader's LED and buzzer, and the board's program.
package struct FeedbackOutcome: Sendable, Equatable, Encodable {
    /// `ok`, `unsupported` (this reader has no LED or buzzer NFCBridge can reach) or `failed`.
    package var reader: String
    /// Why the reader part did not happen; absent when it did.
    package var readerMessage: String?
    /// `ok` (exit 0), `failed` (another exit status, or ended by a signal), `killed` (timed out), `skipped` (one still ran),
    /// `error` (could not start), or `none` (`feedback.exec` not set).
    package var exec: String
    /// The program's exit status, when it exited.
    package var execStatus: Int32?
    /// The signal that ended the program (`SIGTERM`), when one did.
    package var execSignal: String?

    enum CodingKeys: String, CodingKey {
        case reader, readerMessage = "reader_message", exec, execStatus = "exec_status", execSignal = "exec_signal"
    }

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

    /// The configured signal for a new tap: `feedback.on_trust.<verdict>` when the tap has a trust
    /// verdict and that rule is set, else `feedback.on_scan`; nil when neither is configured.
    package func signal(forScanWith verdict: TrustVerdict?) -> (IndicatorSignal, FeedbackOccasion)? {
        let rule: FeedbackRule? = switch verdict {
        case .trusted: settings.onTrusted
        case .untrusted: settings.onUntrusted
        case nil: nil
        }
        if let signal = rule?.signal { return (signal, .trust) }
        return settings.onScan.map { ($0, .scan) }
    }

    /// Gives the configured signal for a new tap of `uid` (``signal(forScanWith:)``), if any.
    package func tagScanned(uid: [UInt8], verdict: TrustVerdict?) async {
        guard let (signal, occasion) = signal(forScanWith: verdict) else { return }
        let outcome = await show(signal, for: occasion, uid: uid)
        if outcome.reader == "failed" { logger.warning("feedback on \(occasion.rawValue): \(outcome.readerMessage ?? "the reader refused it")") }
    }

    /// The configured signal for an encode job's tag result (`feedback.on_job`).
    package func signal(forJob result: JobFeedback) -> IndicatorSignal? {
        switch result {
        case .ok: settings.onJobOK.signal
        case .failed: settings.onJobFailed.signal
        case .refused: settings.onJobRefused.signal
        }
    }

    /// Gives the configured signal for an encode job's tag result on the tag `uid`, if any.
    package func jobTag(_ result: JobFeedback, uid: [UInt8]?) async {
        guard let signal = signal(forJob: result) else { return }
        let outcome = await show(signal, for: .job, uid: uid)
        if outcome.reader == "failed" { logger.warning("feedback on job: \(outcome.readerMessage ?? "the reader refused it")") }
        if outcome.exec == "skipped" {
            // Tags faster than the program: the person at the reader got the previous tag's feedback.
            logger.warning("feedback on job: feedback.exec still ran for an earlier tag, so this tag's (light \(signal.light.rawValue), "
                               + "\(signal.beeps) beep(s)) was not run; a program that ends sooner keeps up")
        }
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
            case let .signaled(signal):
                outcome.exec = "failed"
                outcome.execSignal = FeedbackExec.name(ofSignal: signal)
                logger.warning("feedback.exec \(exec.argv[0]) was ended by \(FeedbackExec.name(ofSignal: signal)): the feedback failed")
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
