import NFCCore

/// The reader loop: open the reader (retrying with back-off while it is absent — the agent never
/// exits because of the reader), poll, scan each arriving tag (identify + NDEF), hand the scan to
/// the agent (which publishes `scanned`) and only then dump it, check presence with a pause between
/// checks, and report removals through the ``PresenceTracker``.
///
/// A reader that stops answering (``NFCError/readerUnresponsive(_:)`` from a poll or presence
/// check) is handled like one that went away: closed, reported ``ReaderLoopEvent/unavailable(_:operation:firstFailure:)``
/// once, and reopened with back-off until it answers again.
///
/// Written against NFCCore's `ReaderDevice` only: libnfc on boards, ``VirtualReaderDevice`` in tests.
/// Cancel the task running ``run()`` (and call `ReaderDevice.abort()`) to stop it; a blocked
/// poll ends then.
///
/// While tags are present the loop checks them with `isPresent` instead of polling, so a second
/// tag that arrives while the first stays is seen once the first leaves (or when the reader
/// returns several targets in one poll).
package struct ReaderLoop: Sendable {
    /// Timings and behaviour.
    package struct Settings: Sendable {
        /// Modulations polled for.
        package var modulations: [Modulation]
        /// Poll timeout and pause between presence checks.
        package var interval: Duration
        /// First retry delay after the reader could not be opened; doubles up to ``retryMaximum``.
        package var retryInitial: Duration
        /// Longest retry delay.
        package var retryMaximum: Duration
        /// Dump every reported arrival after its `scanned`.
        package var dumpOnScan: Bool
        /// Presence rules.
        package var presence: PresenceTracker.Settings

        /// The settings of a configuration: the one source of every default.
        package init(_ config: AgentConfiguration) {
            modulations = config.reader.modulations
            interval = .milliseconds(config.reader.intervalMilliseconds)
            retryInitial = .milliseconds(config.reader.retryInitialMilliseconds)
            retryMaximum = .milliseconds(config.reader.retryMaximumMilliseconds)
            dumpOnScan = config.dump.onScan
            presence = PresenceTracker.Settings(config.presence)
        }
    }

    /// Receives the loop's events; the loop waits for it (so `scanned` is out before the dump starts).
    package typealias Handler = @Sendable (ReaderLoopEvent) async -> Void

    let device: any ReaderDevice
    let scanner: any TagScanning
    let clock: any AgentClock
    let settings: Settings
    let handler: Handler
    /// Where commands get the tags and borrow the reader (nil: no commands).
    let tagAccess: ReaderTagAccess?

    /// Creates the loop. With `tagAccess`, the loop tells it which tags are present and lends it
    /// the reader once per turn (commands act between two presence checks).
    package init(
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
    package func run() async {
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
    ///
    /// Absences: a presence check that fails, or that got silence before its re-select found the
    /// tag again (``PresenceCheck/returned``), is fed to the tracker as an observation without the
    /// tag *before* the poll or re-select that may find it again. So a tag away for
    /// `removal_grace_ms` is removed (and arrives again) whichever path found it back; an absence
    /// of `removal_grace_ms` + `interval_ms` always spans a check (see docs/mqtt.md, "Presence").
    private func session(_ presence: inout PresenceTracker) async -> NFCError? {
        var transports: [[UInt8]: any TagTransport] = [:]
        var scans: [[UInt8]: TagScan] = [:]
        /// The chip found a tag and the search for more waits for the next poll (it asks that tag itself).
        var searchPending = false
        var pollFailures = 0
        /// Tags whose last presence check failed with a garbled frame.
        var garbled: Set<[UInt8]> = []
        while !Task.isCancelled {
            var seen: Set<[UInt8]> = []
            var pause = false
            // Each known tag is asked for by its UID every turn, also while a poll looks for a missing
            // one: a poll's list leaves the tags it found HALTed (InDeselect), which no later REQA
            // wakes (ISO/IEC 14443-3 §6.3); polls alone lose a tag that stays, for as long as it stays.
            var needsPoll = transports.isEmpty || searchPending
            if !needsPoll {
                var allPresent = true
                var missed: Set<[UInt8]> = []
                for (uid, transport) in transports {
                    do {
                        switch try await device.checkPresence(transport) {
                        case .present: seen.insert(uid)
                        case .returned:
                            seen.insert(uid)
                            missed.insert(uid)
                        case .absent: allPresent = false
                        }
                    } catch {
                        if Task.isCancelled || error.isNFCCancellation { return nil }
                        let nfcError = Self.nfcError(error, unavailable: false)
                        if Self.losesReader(nfcError) { return Self.nfcError(error, unavailable: true) }
                        // A garbled frame (`rf_error`: the reader answered, its frame did not come
                        // whole) is an answer, not an absence; the next ones in a row are misses.
                        if case .rfError = nfcError {
                            if garbled.insert(uid).inserted { seen.insert(uid) } else { allPresent = false }
                            continue
                        }
                        allPresent = false
                    }
                    garbled.remove(uid)
                }
                if !allPresent || !missed.isEmpty {
                    // The tracker hears of the miss now, before the poll (or the re-select that
                    // already ran) counts as seeing the tag again.
                    let decisions = presence.observe(seen.subtracting(missed), at: clock.monotonicMilliseconds)
                    guard await apply(decisions, seen: seen, transports: &transports, scans: &scans) else { return nil }
                }
                // Something is missing: poll now, it finds whatever is back (or new) in the field.
                pause = allPresent
                needsPoll = !allPresent
            }
            if needsPoll {
                // An empty field: one long poll (a PN532 polls by itself meanwhile, LibNFCAutoPoll),
                // which a command that wants the reader ends at once.
                let idle = transports.isEmpty
                if idle { tagAccess?.beginIdlePoll { [device] in device.abort() } }
                defer { if idle { tagAccess?.endIdlePoll() } }
                do {
                    let timeout = idle ? max(settings.interval, Self.idlePollRound) : settings.interval
                    let found = try await device.poll(modulations: settings.modulations, timeout: timeout)
                    if pollFailures > 0 { await handler(.pollRecovered) }
                    pollFailures = 0
                    for transport in found {
                        seen.insert(transport.target.uid)
                        transports[transport.target.uid] = transport
                        tagAccess?.tagReselected(transport)
                    }
                } catch {
                    if Task.isCancelled || error.isNFCCancellation { return nil }
                    let nfcError = Self.nfcError(error, unavailable: false)
                    if Self.losesReader(nfcError) { return nfcError }
                    pollFailures += 1
                    await handler(.pollFailed(nfcError, consecutive: pollFailures))
                    try? await Task.sleep(for: settings.interval)
                    continue
                }
            }
            let decisions = presence.observe(seen, at: clock.monotonicMilliseconds)
            guard await apply(decisions, seen: seen, transports: &transports, scans: &scans) else { return nil }
            // A tag the chip found was scanned first; the search for more comes with the next poll.
            searchPending = await device.hasDeferredSearch()
            // Commands act here, between two presence checks, with the reader to themselves.
            await tagAccess?.lendReader()
            await handler(.progress)
            if pause { try? await Task.sleep(for: settings.interval) }
        }
        return nil
    }

    /// Acts on the tracker's decisions: removals, then arrivals (scan, `scanned`, dump on scan) and
    /// repeats. A removed tag that is in `seen` (back in the field) keeps its transport for its new
    /// arrival. False when cancelled.
    private func apply(
        _ decisions: [PresenceTracker.Decision], seen: Set<[UInt8]>, transports: inout [[UInt8]: any TagTransport],
        scans: inout [[UInt8]: TagScan]
    ) async -> Bool {
        for decision in decisions {
            switch decision {
            case let .removed(uid, present, report):
                if !seen.contains(uid) { transports[uid] = nil }
                scans[uid] = nil
                tagAccess?.tagRemoved(uid: uid)
                await handler(.removed(uid: uid, presentMilliseconds: present, report: report))
            case let .arrived(uid, report):
                guard let transport = transports[uid] else { continue }
                guard let scan = await scan(transport) else { return false }
                scans[uid] = scan
                await handler(.arrived(scan, report: report))
                // After its `scanned`: a command waiting for the next tag gets it now.
                tagAccess?.tagArrived(transport, cardInfo: scan.cardInfo)
                if report && settings.dumpOnScan {
                    if await dump(transport, scan: scan) == false { return false }
                }
            case let .repeated(uid):
                if let scan = scans[uid] { await handler(.repeated(scan)) }
            }
        }
        return true
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
            await handler(.dumped(scan, try await scanner.dump(transport, scan: scan)))
        } catch {
            if Task.isCancelled || error.isNFCCancellation { return false }
            await handler(.failed(operation: "dump", uid: scan.uid, Self.nfcError(error, unavailable: false)))
        }
        return true
    }

    /// The least length of a poll on an empty field: the reader, not the host, waits for a tag (a
    /// PN532 in InAutoPoll answers as one arrives), so the idle line carries about one command a
    /// second; the turn between two such polls (commands, the watchdog's progress) comes that often.
    static let idlePollRound: Duration = .seconds(1)

    /// True for the errors that end the session: the reader went away, or it stopped answering
    /// (``NFCError/readerUnresponsive(_:)``: the loop closes it and reopens it with back-off).
    static func losesReader(_ error: NFCError) -> Bool {
        switch error {
        case .readerUnavailable, .readerUnresponsive: true
        default: false
        }
    }

    /// Any error as an ``NFCError`` (foreign errors keep their description).
    static func nfcError(_ error: any Error, unavailable: Bool) -> NFCError {
        if let error = error as? NFCError { return error }
        return unavailable ? .readerUnavailable(String(describing: error)) : .rfError(String(describing: error))
    }
}
