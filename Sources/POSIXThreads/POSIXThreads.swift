import CMalloc
import Glibc

/// A mutex with a condition variable on pthreads: the part of Foundation's `NSCondition` the libnfc
/// and mosquitto threads use, so those modules (and the `nfcbridge` executable) do not need Foundation
/// (issue 13: Foundation with ICU was 6 MB of the agent's RSS). Timed waits use `CLOCK_MONOTONIC`, so
/// a change of the wall clock neither shortens nor stretches them.
public final class ConditionLock: @unchecked Sendable {
    // `@unchecked`: the pthread objects are only used through pthread calls, which synchronise.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Wakes one waiter (call with the lock held).
    public func signal() { pthread_cond_signal(condition) }
    /// Wakes every waiter (call with the lock held).
    public func broadcast() { pthread_cond_broadcast(condition) }
    /// Waits for a signal (call with the lock held; it is held again on return).
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal or until `delay` has passed; `false` when the time ran out.
    @discardableResult
    public func wait(atMost delay: Duration) -> Bool {
        wait(until: Self.deadline(after: delay))
    }

    /// Waits for a signal or until `deadline` (from ``deadline(after:)``); `false` when it passed.
    public func wait(until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(condition, mutex, &deadline) != ETIMEDOUT
    }

    /// `delay` from now on `CLOCK_MONOTONIC`, the clock the timed waits use.
    public static func deadline(after delay: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = max(delay, .zero).components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
                        tv_nsec: nanoseconds % 1_000_000_000)
    }
}

/// Starts a detached pthread running `body`, named `name` (at most 15 bytes are kept, the kernel's
/// limit; shown by `top -H` and debuggers). Returns `false` when the thread could not be created.
@discardableResult
public func startThread(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Start: @unchecked Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    let start = Unmanaged.passRetained(Start(name: String(decoding: name.utf8.prefix(15), as: UTF8.self), body: body))
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { raw in
        guard let raw else { return nil }
        let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
        // Linux applies a name only when the thread sets its own (pthread_setname_np is not
        // visible to Swift without _GNU_SOURCE; /proc/thread-self/comm is the same kernel field).
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = start.name.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        start.body()
        return nil
    }, start.toOpaque())
    guard result == 0 else {
        start.release()
        return false
    }
    pthread_detach(thread)
    return true
}

/// The main thread of a program whose work runs on other threads and tasks.
public enum MainThread {
    /// Blocks the calling thread for good (on a condition nobody signals); the program ends by
    /// `exit` from another thread. Unlike `dispatchMain()`, the thread is not ended with
    /// `pthread_exit`, so its stack is never unwound (issue 25: the unwinder's reads of the
    /// executable's unwind tables stayed in the agent's RSS).
    public static func park() -> Never {
        let condition = ConditionLock()
        condition.lock()
        while true { condition.wait() }
    }
}

/// glibc's malloc arenas: by default each thread that allocates gets an arena of its own (up to 8 per
/// core), and memory freed in one arena serves only the threads on it.
public enum MallocArenas {
    /// Puts every thread on one arena (`mallopt(M_ARENA_MAX, 1)`). Call first thing in `main`, before
    /// any thread starts. The agent's threads allocate little and rarely at the same moment; with an
    /// arena each (13 in a soak), partly used pages spread over all of them and the heaps grew about
    /// 8 kB a minute for good, with one arena they stay flat (issue 25, bench/README.md). `mallopt`
    /// and `M_ARENA_MAX` come from glibc's <malloc.h> (the `CMalloc` module: Swift's Glibc module does
    /// not export it). Returns false when glibc refused it.
    @discardableResult
    public static func useOne() -> Bool {
        mallopt(M_ARENA_MAX, 1) == 1
    }
}
