import CNFC
import POSIXThreads

/// The one thread on which a device's libnfc calls run, one job after another: a ``JobThread``
/// (the same queue the PC/SC backend uses) that also gives libnfc the thread's name.
///
/// libnfc calls block (serial I/O with timeouts of hundreds of milliseconds). Running them on
/// Swift's cooperative pool would stall every task of the process on a 2-core board, so every call
/// is queued here and the caller awaits the result through a continuation. Jobs queued after
/// ``JobThread/stop()`` still run (they are how a closing device releases libnfc).
typealias LibNFCThread = JobThread

extension JobThread {
    /// A thread for libnfc calls. `name` (at most 15 characters are kept, the kernel's limit) shows in
    /// debuggers and `top -H`; Linux applies it only when the thread sets it itself, which
    /// `startThread` does, and so does the kernel-name call kept from before.
    convenience init(libNFCName name: String) {
        let shortName = String(name.prefix(15))
        self.init(name: shortName) { _ = cnfc_set_thread_name(shortName) }
    }
}
