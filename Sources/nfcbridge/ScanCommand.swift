import FoundationEssentials
import Glibc
import LibNFCReader
import NFCBridge
import NFCCore

/// `nfcbridge scan`: identifies every tag that enters the reader's field, reads its NDEF message and
/// prints one line per tag; a tag is reported again only after it has left the field.
/// See docs/cli.md, section "scan".
enum ScanCommand {
    static let usage = """
        usage: nfcbridge scan [--device CONNSTRING] [--once] [--timeout SECONDS] [--json]
          --device   libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --once     stop after the first tag
          --timeout  stop after SECONDS; exit 3 when no tag came
          --json     one JSON object per tag (uid, cardType, cardFamily, product, atqa, sak, ats,
                     version, pmm, systemCode, applicationData, protocolInfo, ndef {hex, records},
                     ndefStatus, ndefError)

        """

    /// Every modulation the PN53x readers libnfc drives can poll.
    static let modulations = AgentConfiguration.ReaderSettings.everyPN53xModulation
    /// Pause between two presence checks while waiting for a tag to leave.
    static let presenceInterval: Duration = .milliseconds(100)
    /// One poll call's longest wait when no `--timeout` bounds it (the loop polls again).
    static let pollSlice: Duration = .seconds(60)

    /// Runs `scan` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["once", "json", "help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let options = try ReaderOptions(&arguments)
        let once = arguments.flag("once"), json = arguments.flag("json")
        try arguments.finish(optionsOnly: "scan")

        let outcome = try await options.withReader { device in
            try await scan(device: device, options: options, once: once, json: json)
        }
        if let failure = outcome.lastFailure {
            // Already reported when it happened; the exit status says something failed.
            throw CLIError(
                code: failure.code, message: "\(outcome.failures) tag(s) could not be read", exitCode: ReaderExitStatus.operationFailed)
        }
        if outcome.reported == 0 && !outcome.interrupted {
            throw CLIError.noTag(after: options.timeout ?? 0, device: options.deviceLabel)
        }
    }

    /// How a scan ended.
    struct Outcome: Sendable {
        var reported = 0
        var failures = 0
        var lastFailure: NFCError?
        var interrupted = false
    }

    /// Polls until `--once` is satisfied, the deadline passes or a signal interrupts.
    private static func scan(device: any ReaderDevice, options: ReaderOptions, once: Bool, json: Bool) async throws -> Outcome {
        let deadline = options.deadline()
        var outcome = Outcome()
        while true {
            if Task.isCancelled {
                outcome.interrupted = true
                return outcome
            }
            let slice = deadline.map { ContinuousClock.now.duration(to: $0) } ?? pollSlice
            if slice <= .zero { return outcome }
            let transports: [any TagTransport]
            do {
                // --once: one select, the tag stays selected for its scan (a second tag in the
                // field is not looked for, which would cost a deselect and two more selects).
                transports =
                    once
                    ? try await device.poll(modulations: options.modulations, timeout: slice, limit: 1)
                    : try await device.poll(modulations: options.modulations, timeout: slice)
            } catch let error where error.isNFCCancellation {
                outcome.interrupted = true
                return outcome
            } catch let error as NFCError {
                throw CLIError.reader(error)
            }
            if let found = transports.first { PollHint.remember(found.target.modulation) }
            for transport in transports {
                do {
                    let report = try await readReport(transport)
                    Console.out((json ? report.jsonLine() : report.summaryLine) + "\n")
                    outcome.reported += 1
                } catch let error where error.isNFCCancellation {
                    outcome.interrupted = true
                    return outcome
                } catch let error as NFCError {
                    if case .readerUnavailable = error { throw CLIError.reader(error) }
                    Console.report(CLIError(error))
                    outcome.failures += 1
                    outcome.lastFailure = error
                }
            }
            if once && !transports.isEmpty { return outcome }
            try await waitForRemoval(of: transports, device: device, deadline: deadline)
        }
    }

    /// Identifies the tag and reads its NDEF message — only the message, never a dump
    /// (``NDEFReader``). An unreadable message is part of the report; a tag that leaves mid-read throws.
    static func readReport(_ transport: any TagTransport) async throws -> ScanReport {
        let info = try await TagIdentifier.identify(transport)
        return ScanReport(cardInfo: info, ndef: try await NDEFReader.read(info: info, transport: transport, justIdentified: true))
    }

    /// Checks, every ``presenceInterval``, until none of the tags answers any more (or the deadline
    /// passes, or the task is cancelled). A tag whose check fails counts as gone.
    private static func waitForRemoval(
        of transports: [any TagTransport], device: any ReaderDevice, deadline: ContinuousClock.Instant?
    ) async throws {
        var present = transports
        while !present.isEmpty {
            if Task.isCancelled { return }
            if let deadline, ContinuousClock.now >= deadline { return }
            var still: [any TagTransport] = []
            for transport in present {
                do {
                    if try await device.isPresent(transport) { still.append(transport) }
                } catch let error as NFCError {
                    if case .readerUnavailable = error { throw CLIError.reader(error) }
                }
            }
            present = still
            if !present.isEmpty {
                do { try await Task.sleep(for: presenceInterval) } catch { return }
            }
        }
    }
}
