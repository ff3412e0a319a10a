import NFCCore

/// The reader loop: open the reader (retrying with back-off while it is absent — the agent never
/// exits because of the reader), poll, scan each arriving tag (identify + NDEF), hand the scan to
/// the agent (which publishes `scanned`) and only then dump it, check presence with a pause between
/// checks, and report removals through the ``PresenceTracker``.
///
/// Written against NFCCore's `ReaderDevice` only: libnfc on boards, ``VirtualReaderDevice`` in tests.
/// Cancel the task running ``run()`` (and call `ReaderDevice.abort()`) to stop it; a blocked
/// poll ends then.
///
/// While tags are present the loop checks them with `isPresent` instead of polling, so a second
/// tag that arrives while the first stays is seen once the first leaves (or when the reader
/// returns several targets in one poll).
public struct ReaderLoop: Sendable {
    /// Timings and behaviour.
    public struct Settings: Sendable {
        /// Modulations polled for.
        public var modulations: [Modulation]
        /// Poll timeout and pause between presence checks.
        public var interval: Duration
        /// First retry delay after the reader could not be opened; doubles up to ``retryMaximum``.
        public var retryInitial: Duration
        /// Longest retry delay.
        public var retryMaximum: Duration
        /// Dump every reported arrival after its `scanned`.
        public var dumpOnScan: Bool
        /// Presence rules.
        public var presence: PresenceTracker.Settings

        /// The settings of a configuration: the one source of every default.
        public init(_ config: AgentConfiguration) {
            modulations = config.reader.modulations
            interval = .milliseconds(config.reader.intervalMilliseconds)
            retryInitial = .milliseconds(config.reader.retryInitialMilliseconds)
            retryMaximum = .milliseconds(config.reader.retryMaximumMilliseconds)
            dumpOnScan = config.dump.onScan
            presence = PresenceTracker.Settings(config.presence)
        }
    }

    /// Receives the loop's events; the loop waits for it (so `scanned` is out before the dump starts).
    public typealias Handler = @Sendable (ReaderLoopEvent) async -> Void

    let device: any ReaderDevice
    let scanner: any TagScanning
    let clock: any AgentClock
    let settings: Settings
    let handler: Handler
    /// Where commands get the tags and borrow the reader (nil: no commands).
    let tagAccess: ReaderTagAccess?

    /// Creates the loop. With `tagAccess`, the loop tells it which tags are present and lends it
    /// the reader once per turn (commands act between two presence checks).
    public init(
        device: any ReaderDevice, scanner: any TagScanning, clock: any AgentClock, settings: Settings,
        tagAccess: ReaderTagAccess? = nil, handler: @escaping Handler
    ) {
        self.device = device
        self.scanner = scanner
        self.clock = clock
        self.settings = settings
        self.tagAccess = tagAccess
        self.handler = handler
    }

    /// Runs until the task is cancelled. Closes the reader before returning.
    public func run() async {
        var presence = PresenceTracker(settings: settings.presence)
        var failures = 0
        var everOpened = false
        while !Task.isCancelled {
            let info: ReaderInfo
            do {
                info = try await device.open()
            } catch {
                if Task.isCancelled || error.isNFCCancellation { break }
                failures += 1
                await handler(.unavailable(Self.nfcError(error, unavailable: true), operation: "open", firstFailure: failures == 1))
                await pause(for: retryDelay(after: failures))
                continue
            }
            failures = 0
            await handler(.opened(info, reopened: everOpened))
            everOpened = true
            let lost = await session(&presence)
            tagAccess?.readerLost()
            await device.close()
            // On shutdown the tags stay where they are: the agent clears the `tag` state instead of
            // reporting removals that did not happen.
            guard let lost, !Task.isCancelled else { break }
            for decision in presence.removeAll(at: clock.monotonicMilliseconds) {
                if case let .removed(uid, present, report) = decision {
                    await handler(.removed(uid: uid, presentMilliseconds: present, report: report))
                }
            }
            failures = 1
            await handler(.unavailable(lost, operation: "poll", firstFailure: true))
            await pause(for: retryDelay(after: failures))
        }
    }

    /// Sleeps `duration` in slices of at most one interval, reporting progress after each slice so
    /// the systemd watchdog knows a long back-off is not a hang.
    private func pause(for duration: Duration) async {
        var left = duration
        while left > .zero, !Task.isCancelled {
            let slice = min(left, max(settings.interval, .milliseconds(100)))
            try? await Task.sleep(for: slice)
            left -= slice
            await handler(.progress)
        }
    }

    /// Back-off: initial × 2^(n-1), capped.
    func retryDelay(after failures: Int) -> Duration {
        var delay = settings.retryInitial
        for _ in 1..<max(1, min(failures, 30)) where delay < settings.retryMaximum { delay *= 2 }
        return min(delay, settings.retryMaximum)
    }

    /// Polls and checks presence while the reader works. Returns the error that lost the reader,
    /// or nil when cancelled.
    private func session(_ presence: inout PresenceTracker) async -> NFCError? {
        var transports: [[UInt8]: any TagTransport] = [:]
        var scans: [[UInt8]: TagScan] = [:]
        var needsPoll = true
        var pollFailures = 0
        while !Task.isCancelled {
            var seen: Set<[UInt8]> = []
            var pause = false
            if !needsPoll && !transports.isEmpty {
                var allPresent = true
                for (uid, transport) in transports {
                    do {
                        if try await device.isPresent(transport) { seen.insert(uid) } else { allPresent = false }
                    } catch {
                        if Task.isCancelled || error.isNFCCancellation { return nil }
                        if case .readerUnavailable = Self.nfcError(error, unavailable: false) {
                            return Self.nfcError(error, unavailable: true)
                        }
                        allPresent = false
                    }
                }
                // Something is missing: poll now, it re-selects whatever is still (or again) there.
                if allPresent { pause = true } else { needsPoll = true }
            }
            if needsPoll || transports.isEmpty {
                seen = []
                do {
                    let found = try await device.poll(modulations: settings.modulations, timeout: settings.interval)
                    if pollFailures > 0 { await handler(.pollRecovered) }
                    pollFailures = 0
                    for transport in found {
                        seen.insert(transport.target.uid)
                        transports[transport.target.uid] = transport
                        tagAccess?.tagReselected(transport)
                    }
                    needsPoll = transports.keys.contains { !seen.contains($0) }
                } catch {
                    if Task.isCancelled || error.isNFCCancellation { return nil }
                    let nfcError = Self.nfcError(error, unavailable: false)
                    if case .readerUnavailable = nfcError { return nfcError }
                    pollFailures += 1
                    await handler(.pollFailed(nfcError, consecutive: pollFailures))
                    try? await Task.sleep(for: settings.interval)
                    continue
                }
            }
            for decision in presence.observe(seen, at: clock.monotonicMilliseconds) {
                switch decision {
                case let .removed(uid, present, report):
                    transports[uid] = nil
                    scans[uid] = nil
                    tagAccess?.tagRemoved(uid: uid)
                    await handler(.removed(uid: uid, presentMilliseconds: present, report: report))
                case let .arrived(uid, report):
                    guard let transport = transports[uid] else { continue }
                    guard let scan = await scan(transport) else { return nil }
                    scans[uid] = scan
                    await handler(.arrived(scan, report: report))
                    // After its `scanned`: a command waiting for the next tag gets it now.
                    tagAccess?.tagArrived(transport)
                    if report && settings.dumpOnScan {
                        if await dump(transport, scan: scan) == false { return nil }
                    }
                case let .repeated(uid):
                    if let scan = scans[uid] { await handler(.repeated(scan)) }
                }
            }
            // Commands act here, between two presence checks, with the reader to themselves.
            await tagAccess?.lendReader()
            await handler(.progress)
            if pause { try? await Task.sleep(for: settings.interval) }
        }
        return nil
    }

    /// Scans a tag; a failed scan still yields what anticollision gave (a tap is never lost) plus
    /// a `failed` event. Nil when cancelled.
    private func scan(_ transport: any TagTransport) async -> TagScan? {
        await handler(.busy(operation: "scan"))
        do {
            let scan = try await scanner.scan(transport)
            for problem in scan.problems { await handler(.failed(operation: "scan", uid: scan.uid, problem)) }
            return scan
        } catch {
            if Task.isCancelled || error.isNFCCancellation { return nil }
            await handler(.failed(operation: "scan", uid: transport.target.uid, Self.nfcError(error, unavailable: false)))
            return TagScan(target: transport.target)
        }
    }

    /// Dumps a tag; false when cancelled.
    private func dump(_ transport: any TagTransport, scan: TagScan) async -> Bool {
        await handler(.busy(operation: "dump"))
        do {
            let export = try await scanner.dump(transport, scan: scan)
            await handler(.dumped(scan, export))
        } catch {
            if Task.isCancelled || error.isNFCCancellation { return false }
            await handler(.failed(operation: "dump", uid: scan.uid, Self.nfcError(error, unavailable: false)))
        }
        return true
    }

    /// Any error as an ``NFCError`` (foreign errors keep their description).
    static func nfcError(_ error: any Error, unavailable: Bool) -> NFCError {
        if let error = error as? NFCError { return error }
        return unavailable ? .readerUnavailable(String(describing: error)) : .rfError(String(describing: error))
    }
}
