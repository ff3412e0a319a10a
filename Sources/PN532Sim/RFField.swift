import Synchronization

/// A tag lying in the emulated field.
public struct PlacedTag: Sendable {
    /// The name the scenario or control channel gave the tag.
    public let id: String
    /// The virtual tag itself (its memory lives on while it is out of the field).
    public let tag: any VirtualTag
    /// Distinguishes placements: a tag removed and placed again is a new arrival.
    public let placement: UInt64
}

/// The physical world in front of the emulated antenna: which tags are there, in arrival order.
///
/// Shared by the PN532 session thread, the control channel and the scenario timeline, so every
/// access takes a lock. Observers hear about every change (the session thread uses that to answer
/// a pending InAutoPoll the moment a tag arrives). The field also holds the fault injections of
/// the control channel, because they are facts about the tags, not about the chip.
public final class RFField: Sendable {
    private struct State {
        var tags: [PlacedTag] = []
        var nextPlacement: UInt64 = 1
        var removeAfterCommands: [String: Int] = [:]
        var corruptNextWrite = false
        /// The garble fault: nil when not armed, `.some(nil)` for the next answer, `.some(code)` for the
        /// next answer to that command.
        var garbleNextAnswer: UInt8??
        var misframeNextCommand = false
        /// The cut fault: the answers still to cut and the command they answer (nil: any).
        var cutAnswers: (code: UInt8?, count: Int) = (nil, 0)
        var observers: [UInt64: @Sendable () -> Void] = [:]
        var nextObserver: UInt64 = 1
    }

    private let state = Mutex(State())

    /// An empty field.
    public init() {}

    /// The tags in the field, in arrival order.
    public var placedTags: [PlacedTag] { state.withLock { $0.tags } }

    /// True when the tag with `id` is in the field.
    public func contains(id: String) -> Bool { state.withLock { s in s.tags.contains { $0.id == id } } }

    /// True while that placement is still in the field.
    public func isPlaced(_ placement: UInt64) -> Bool {
        state.withLock { s in s.tags.contains { $0.placement == placement } }
    }

    /// Puts `tag` into the field under `id`. A tag already there stays where it is.
    @discardableResult
    public func place(_ tag: any VirtualTag, id: String) -> PlacedTag {
        let (placed, isNew) = state.withLock { s -> (PlacedTag, Bool) in
            if let existing = s.tags.first(where: { $0.id == id }) { return (existing, false) }
            let placed = PlacedTag(id: id, tag: tag, placement: s.nextPlacement)
            s.nextPlacement += 1
            s.tags.append(placed)
            return (placed, true)
        }
        if isNew { notify() }
        return placed
    }

    /// Takes the tag with `id` out of the field; it loses power. Returns false when it was not there.
    @discardableResult
    public func remove(id: String) -> Bool {
        let removed = state.withLock { s -> PlacedTag? in
            guard let index = s.tags.firstIndex(where: { $0.id == id }) else { return nil }
            s.removeAfterCommands[id] = nil
            return s.tags.remove(at: index)
        }
        guard let removed else { return false }
        removed.tag.powerOff()
        notify()
        return true
    }

    /// Empties the field.
    public func removeAll() {
        for placed in placedTags { remove(id: placed.id) }
    }

    /// Fault: the tag `id` leaves the field after `count` more commands reached it.
    public func removeAfterCommands(_ count: Int, id: String) {
        state.withLock { $0.removeAfterCommands[id] = max(0, count) }
    }

    /// Fault: the next write command that reaches any tag gets its last data byte flipped.
    public func corruptNextWrite() {
        state.withLock { $0.corruptNextWrite = true }
    }

    /// Fault (of the line rather than of a tag, kept here with the others): the chip's next answer
    /// frame — with `code`, its next answer to that command — reaches the host with a wrong data
    /// checksum, as a noisy or overrun serial line delivers it.
    public func garbleNextAnswer(to code: UInt8? = nil) {
        state.withLock { $0.garbleNextAnswer = .some(code) }
    }

    /// Takes the garble-next-answer fault if one is armed for this answer (to command `code`).
    func takeGarbleNextAnswer(code: UInt8?) -> Bool {
        state.withLock { s in
            guard case let .some(wanted) = s.garbleNextAnswer, wanted == nil || wanted == code else { return false }
            s.garbleNextAnswer = nil
            return true
        }
    }

    /// Fault (of the line): the chip's next `count` answer frames — with `code`, its next answers to that
    /// command — reach the host without their last byte (the postamble, UM0701-02 §6.2.1.1), as a line
    /// that drops a byte delivers them: the host waits for the rest of the frame until its own timeout.
    public func cutNextAnswers(to code: UInt8? = nil, count: Int) {
        state.withLock { $0.cutAnswers = (code, max(count, 0)) }
    }

    /// Takes one cut of the cut fault if one is armed for this answer (to command `code`).
    func takeCutAnswer(code: UInt8?) -> Bool {
        state.withLock { s in
            guard s.cutAnswers.count > 0, s.cutAnswers.code == nil || s.cutAnswers.code == code else { return false }
            s.cutAnswers.count -= 1
            return true
        }
    }

    /// Fault (of the line): the chip's framer takes the next bytes from the host as the body of a
    /// frame that began `00 FF FF 01` — what it finds inside a FeliCa poll (`… 00 FF FF 01 00 …`)
    /// whose LEN byte was lost — and so waits for 256 bytes (LEN FFh + DCS) before it looks for a
    /// start code again, swallowing every command meanwhile (UM0701-02 §6.2.1.1: LEN FFh and LCS
    /// 01h pass the length checksum).
    public func misframeNextCommand() {
        state.withLock { $0.misframeNextCommand = true }
    }

    /// Takes the misframe fault if one is armed.
    func takeMisframeNextCommand() -> Bool {
        state.withLock { s in
            defer { s.misframeNextCommand = false }
            return s.misframeNextCommand
        }
    }

    /// Called before a command reaches `placed`. Counts down a pending `removeAfterCommands`;
    /// returns false when the tag is not (or no longer) in the field.
    func admitCommand(to placed: PlacedTag) -> Bool {
        let outcome = state.withLock { s -> (present: Bool, leavesNow: Bool) in
            guard s.tags.contains(where: { $0.placement == placed.placement }) else { return (false, false) }
            guard let left = s.removeAfterCommands[placed.id] else { return (true, false) }
            if left <= 0 { return (false, true) }
            s.removeAfterCommands[placed.id] = left - 1
            return (true, false)
        }
        if outcome.leavesNow { remove(id: placed.id) }
        return outcome.present
    }

    /// Takes the corrupt-next-write fault if one is armed.
    func takeCorruptNextWrite() -> Bool {
        state.withLock { s in
            defer { s.corruptNextWrite = false }
            return s.corruptNextWrite
        }
    }

    /// Registers `handler`, called (on the changing thread, without the lock) after every change.
    @discardableResult
    public func addObserver(_ handler: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { s in
            defer { s.nextObserver += 1 }
            s.observers[s.nextObserver] = handler
            return s.nextObserver
        }
    }

    /// Removes an observer.
    public func removeObserver(_ token: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    private func notify() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer() }
    }
}
