/// Which failures of the state filesystem begin a new outage: one that comes within
/// `quietMilliseconds` of the disk working again continues the outage before (a full disk flaps:
/// the rewritten log fits in the blocks it freed, the next event does not).
struct OutageEpisodes: Equatable {
    let quietMilliseconds: Int64
    private var lastRecovery: Int64?

    init(quietMilliseconds: Int64) { self.quietMilliseconds = quietMilliseconds }

    /// Writes failed at `now` (monotonic ms): true when this begins a new outage.
    func failed(at now: Int64) -> Bool {
        guard let lastRecovery else { return true }
        return now - lastRecovery >= quietMilliseconds
    }

    /// Writes work again at `now`.
    mutating func recovered(at now: Int64) { lastRecovery = now }
}
