import Dispatch
import Foundation
import Synchronization

/// Plays a ``ScenarioTimeline`` on its own thread: at each event it takes tags out of the field and
/// puts others in. Stops at the end, or loops forever when the timeline says so.
public final class TimelinePlayer: Sendable {
    private let timeline: ScenarioTimeline
    private let field: RFField
    private let catalog: TagCatalog
    private let log: @Sendable (String) -> Void
    private let stopSignal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let state = Mutex<(started: Bool, stopped: Bool)>((false, false))

    /// A player for `timeline` acting on `field` with tags from `catalog`.
    public init(timeline: ScenarioTimeline, field: RFField, catalog: TagCatalog,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.timeline = timeline
        self.field = field
        self.catalog = catalog
        self.log = log
    }

    /// Starts playing. Events at time 0 happen before this returns, so the field is set up by the
    /// time the simulator says it is ready.
    public func start() {
        guard state.withLock({ s in defer { s.started = true }; return !s.started }) else { return }
        let start = DispatchTime.now()
        let immediate = timeline.events.prefix { $0.at == .zero }
        for event in immediate { apply(event) }
        let thread = Thread { [self] in
            play(firstCycleStart: start, skipping: immediate.count)
            finished.signal()
        }
        thread.name = "scenario-timeline"
        thread.start()
    }

    /// Stops playing (the field stays as it is).
    public func stop() {
        let wasRunning = state.withLock { s in defer { s.stopped = true }; return s.started && !s.stopped }
        guard wasRunning else { return }
        stopSignal.signal()
        finished.wait()
    }

    private func play(firstCycleStart: DispatchTime, skipping done: Int) {
        var cycleStart = firstCycleStart, skip = done
        repeat {
            for event in timeline.events.dropFirst(skip) {
                guard waitUntil(cycleStart, plus: event.at) else { return }
                apply(event)
            }
            guard timeline.loops, waitUntil(cycleStart, plus: timeline.period) else { return }
            cycleStart = DispatchTime.now()
            skip = 0
        } while true
    }

    /// Sleeps until the moment; false when stopped meanwhile.
    private func waitUntil(_ start: DispatchTime, plus offset: Duration) -> Bool {
        let nanoseconds = offset.components.seconds * 1_000_000_000 + offset.components.attoseconds / 1_000_000_000
        return stopSignal.wait(timeout: start + .nanoseconds(Int(nanoseconds))) == .timedOut
    }

    private func apply(_ event: ScenarioTimeline.Event) {
        if event.removeAll {
            field.removeAll()
            log("timeline: field emptied")
        }
        for id in event.remove where field.remove(id: id) { log("timeline: removed \(id)") }
        for id in event.place {
            guard let tag = catalog.tag(id: id) else { continue }
            field.place(tag, id: id)
            log("timeline: placed \(id)")
        }
    }
}
