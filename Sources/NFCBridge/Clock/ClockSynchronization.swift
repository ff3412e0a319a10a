import CTimex

/// Whether the kernel says the wall clock is synchronized (adjtimex(2): `TIME_ERROR` or the
/// `STA_UNSYNC` status bit mean it is not), the way `timedatectl`'s "System clock synchronized"
/// reads it. Home Assistant drops scans whose `ts` is older than `mqtt.live_window_s` when they
/// arrive, so a board clock that drifts makes live taps look late (docs/home-assistant.md).
package enum ClockSynchronization {
    /// True when synchronized, false when not, nil when the kernel does not say.
    package static var isSynchronized: Bool? {
        var status = timex()  // modes 0: read only
        let state = adjtimex(&status)
        if state < 0 { return nil }
        return state != TIME_ERROR && status.status & STA_UNSYNC == 0
    }
}
