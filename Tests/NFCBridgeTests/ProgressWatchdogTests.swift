import Synchronization
import Testing

@testable import NFCBridge

/// The watchdog's rules, one tick at a time, on a hand-driven clock and a recording notifier.
@Suite struct ProgressWatchdogTests {
    final class RecordingNotifier: ServiceNotifying {
        private let states = Mutex<[String]>([])
        var sent: [String] { states.withLock { $0 } }
        var watchdogInterval: Duration? { .seconds(2) }
        func notify(_ state: String) { states.withLock { $0.append(state) } }
    }

    final class ProgressSource: Sendable {
        let progress = Mutex(ProgressWatchdog.Progress(lastProgress: 0, busySince: nil, isReaderHung: false))
        func read() -> ProgressWatchdog.Progress { progress.withLock { $0 } }
    }

    let clock = ManualClock()
    let notifier = RecordingNotifier()
    let source = ProgressSource()
    let logs = LogRecorder()

    func makeWatchdog() -> ProgressWatchdog {
        let source = self.source
        return ProgressWatchdog(
            interval: .seconds(2), notifier: notifier, clock: clock,
            logger: AgentLogger(level: .debug, journald: false, clock: clock, sink: logs.sink)
        ) { source.read() }
    }

    @Test func pingsWhileTheReaderLoopMakesProgress() {
        let watchdog = makeWatchdog()
        #expect(watchdog.tick())
        clock.advance(milliseconds: 999)
        #expect(watchdog.tick())
        #expect(notifier.sent == ["WATCHDOG=1", "WATCHDOG=1"])
    }

    @Test func stopsPingingWithoutProgressAndSaysWhyOnce() {
        let watchdog = makeWatchdog()
        clock.advance(milliseconds: 1000)  // half of WatchdogSec
        watchdog.tick()
        watchdog.tick()
        #expect(notifier.sent == ["STATUS=watchdog stopped: reader loop made no progress for 1000 ms"])
        source.progress.withLock { $0.lastProgress = 1000 }
        watchdog.tick()
        #expect(notifier.sent.suffix(2) == ["STATUS=running", "WATCHDOG=1"])
    }

    @Test func aTagOperationUnderWayCountsAsProgressForAWhile() {
        let watchdog = makeWatchdog()
        source.progress.withLock { $0.busySince = 0 }
        clock.advance(milliseconds: 60_000)
        watchdog.tick()
        #expect(notifier.sent == ["WATCHDOG=1"])
        clock.advance(milliseconds: ProgressWatchdog.longestTagOperationMilliseconds)
        watchdog.tick()
        #expect(notifier.sent.last?.hasPrefix("STATUS=watchdog stopped: reader loop made no progress") == true)
    }

    @Test func aHungReaderStopsThePings() {
        let watchdog = makeWatchdog()
        source.progress.withLock {
            $0.isReaderHung = true
            $0.readerDetail = "no answer"
        }
        watchdog.tick()
        #expect(notifier.sent.count == 1)
        #expect(notifier.sent.first?.contains("reader unresponsive") == true)
        #expect(notifier.sent.first?.contains("(no answer)") == true)
        #expect(logs.recorded.contains { $0.contains("error: watchdog: reader unresponsive") })
    }

    @Test func nothingIsSentOnceStopped() async {
        let watchdog = makeWatchdog()
        watchdog.tick()
        watchdog.stop()
        #expect(watchdog.tick() == false)
        // The loop ends by itself (no cancel needed) and sends nothing more.
        await watchdog.run()
        #expect(notifier.sent == ["WATCHDOG=1"])
    }
}
