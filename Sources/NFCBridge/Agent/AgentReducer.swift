import FoundationEssentials
import Glibc
import NFCCore

/// What the agent does about a reader-loop event, besides changing its state: publish retained
/// state, emit an event, write a log line. The ``Agent`` carries them out in order.
package enum AgentEffect: Sendable, Equatable {
    /// Write a log line.
    case log(LogLevel, String)
    /// Publish the retained `reader` state.
    case publishReader
    /// Publish the retained `info`.
    case publishInfo
    /// Publish the retained `tag` state.
    case publishTag
    /// Emit `event/scanned` (`at`: its `ts`, nil for now).
    case emitScanned(TagScan, at: Date?)
    /// Emit `event/removed` (`afterRestart`: the tag left while the agent was down).
    case emitRemoved(RemovedEvent)
    /// Emit `event/dump`.
    case emitDump(TagScan, TagDump)
    /// Emit `event/error`.
    case emitError(NFCError, operation: String, uid: [UInt8]?)
}

/// The agent's event handling as a pure function: state + reader-loop event (+ the time) → new
/// state + effects. No I/O, no clock, no locks: tested like ``PresenceTracker``.
package enum AgentReducer {
    /// Failed reopens of an unresponsive reader after which it counts as hung
    /// (``AgentState/isReaderHung``) and the systemd watchdog stops being petted (docs/operations.md).
    package static let reopensBeforeHung = 3

    /// Applies `event` to `state` at wall-clock `now` and monotonic `monotonic` milliseconds, and
    /// returns what to do about it, in order.
    package static func reduce(_ state: inout AgentState, _ event: ReaderLoopEvent, now: Date, monotonic: Int64)
        -> [AgentEffect]
    {
        switch event {
        case let .opened(info, reopened):
            state.readerInfo = info
            state.reader = ReaderStatus(state: .ok, device: info.connstring, since: now)
            if reopened { state.readerReopens += 1 }
            state.failedUnresponsiveReopens = 0
            return [
                .log(.notice, "reader \(reopened ? "reopened" : "opened"): \(info.name) (\(info.firmware)) at \(info.connstring)"),
                .publishReader, .publishInfo,
            ]
        case let .unavailable(error, operation, firstFailure):
            var effects: [AgentEffect] = []
            // A poll (or presence check) that lost the reader failed too: `poll_errors` counts it.
            if operation == "poll" { state.pollErrors += 1 }
            // A reader whose port is there but that does not answer is `error`; one that is gone, `absent`.
            let unresponsive = if case .readerUnresponsive = error { true } else { false }
            let readerState: ReaderStatus.State = unresponsive ? .error : .absent
            if unresponsive && operation == "open" {
                state.failedUnresponsiveReopens += 1
                if state.failedUnresponsiveReopens == Self.reopensBeforeHung {
                    effects.append(.log(.error, "reader still silent after \(Self.reopensBeforeHung) reopen attempts: the watchdog stops pinging"))
                }
            } else if !unresponsive {
                state.failedUnresponsiveReopens = 0
            }
            if state.reader.state != readerState || state.reader.detail != error.message {
                state.reader = ReaderStatus(state: readerState, device: state.reader.device, since: now, detail: error.message)
                effects.append(.publishReader)
            }
            if firstFailure {
                effects += [
                    .log(.warning, "reader unavailable (\(operation)): \(error.message); retrying"),
                    .emitError(error, operation: operation, uid: nil),
                ]
            } else {
                effects.append(.log(.debug, "reader still unavailable: \(error.message)"))
            }
            return effects
        case let .pollFailed(error, consecutive):
            state.pollErrors += 1
            var effects: [AgentEffect] = []
            if consecutive == 1 {
                effects += [.log(.warning, "poll failed: \(error.message)"), .emitError(error, operation: "poll", uid: nil)]
            }
            if consecutive >= 3, state.reader.state == .ok {
                state.reader = ReaderStatus(state: .error, device: state.reader.device, since: now, detail: error.message)
                effects.append(.publishReader)
            }
            return effects
        case .pollRecovered:
            guard state.reader.state == .error else { return [] }
            state.reader = ReaderStatus(state: .ok, device: state.reader.device, since: now)
            return [.publishReader]
        case .arrived(var scan, let report):
            // `last` (Home Assistant's Last UID) takes only a scan that goes out live.
            scan.initial = state.tags.arrive(scan, at: now, reported: report && state.linkLive)
            guard report else {
                return [.log(.info, "tag \(scan.uid.hexString) tapped again within min_interval_ms: not reported"), .publishTag]
            }
            state.scansTotal += 1
            return [.log(.info, "tag \(scan.uid.hexString) (\(scan.cardType)) scanned\(scan.initial ? " (initial: it was on the reader before the restart)" : "")"), .emitScanned(scan, at: now), .publishTag]
        case let .repeated(scan):
            state.scansTotal += 1
            return [.log(.debug, "tag \(scan.uid.hexString) still present: scanned again"), .emitScanned(scan, at: nil)]
        case let .removed(uid, presentMilliseconds, report):
            let tag = state.tags.remove(uid)
            guard report else { return [.publishTag] }
            return [
                .log(.info, "tag \(uid.hexString) removed after \(presentMilliseconds) ms"),
                .emitRemoved(RemovedEvent(uid: uid, cardType: tag?.cardType, presentMilliseconds: presentMilliseconds)),
                .publishTag,
            ]
        case let .dumped(scan, dump):
            return [.emitDump(scan, dump)]
        case let .failed(operation, uid, error):
            return [
                .log(.warning, "\(operation) failed\(uid.map { " on tag \($0.hexString)" } ?? ""): \(error.message)"),
                .emitError(error, operation: operation, uid: uid),
            ]
        case .progress:
            // After the reader opened, a turn of the loop is a poll that has run: a tag the previous
            // run left in the field that it did not find left while the agent was down.
            var effects: [AgentEffect] = []
            if state.reader.state == .ok {
                for tag in state.tags.firstPollDone() {
                    let present = max(0, Timestamp.milliseconds(now) - Timestamp.milliseconds(tag.since))
                    effects += [
                        .log(.info, "tag \(tag.uid.hexString) removed while the agent was down (it was on the reader before the restart)"),
                        .emitRemoved(RemovedEvent(uid: tag.uid, cardType: tag.cardType, presentMilliseconds: present, afterRestart: true)),
                    ]
                }
            }
            state.lastProgress = monotonic
            state.busySince = nil
            return effects
        case .busy:
            state.busySince = monotonic
            return []
        }
    }
}
