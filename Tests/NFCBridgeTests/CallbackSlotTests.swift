import Foundation
import POSIXThreads
import Synchronization
import TestSupport
import Testing

/// ``CallbackSlot``: a callback read out of its slot leaves nothing behind. The spelling it replaces,
/// `Mutex<(@Sendable (T) -> Void)?>` read with `withLock { $0 }`, wraps the stored closure in two more
/// thunks per read with Swift 6.3.1 (64 bytes each time; a million reads as below crash the test with
/// a stack overflow when the closure is called): the spool's durability observer, once per batch
/// written, made issue 25's soak grow.
@Suite struct CallbackSlotTests {
    final class Counter: Sendable {
        let value = Atomic<Int64>(0)
    }

    /// The process's anonymous resident memory, in kB (`RssAnon` of /proc/self/status).
    static func anonymousKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test func aCallbackReadAMillionTimesLeavesNoMemoryBehind() throws {
        let slot = CallbackSlot<Int64>()
        let total = Counter()
        slot.set { total.value.add($0, ordering: .relaxed) }
        let calls: Int64 = 1_000_000
        // The broken spelling keeps 64 MB a million reads (64 bytes a read), if the call does not
        // overflow the stack first. The resident size is the whole process's, and other suites
        // running beside this one allocate too: the best of up to three attempts counts — a leak
        // grows on every attempt, another test's allocations do not coincide with all three.
        let limit = 16_384
        var attempts: [Int] = []
        repeat {
            let before = try Self.anonymousKilobytes()
            for value in 0..<calls { slot(value) }
            attempts.append(try Self.anonymousKilobytes() - before)
        } while attempts.count < 3 && attempts.allSatisfy { $0 >= limit }
        #expect(total.value.load(ordering: .relaxed) == Int64(attempts.count) * calls * (calls - 1) / 2)
        #expect(attempts.contains { $0 < limit }, "\(calls) reads of the callback kept \(attempts) kB (each attempt)")
    }

    @Test func anEmptySlotSaysSoAndASetOneCanBeCleared() {
        let slot = CallbackSlot<Void>()
        let calls = Counter()
        #expect(!slot(()))
        slot.set { calls.value.add(1, ordering: .relaxed) }
        #expect(slot(()))
        slot.set(nil)
        #expect(!slot(()))
        #expect(calls.value.load(ordering: .relaxed) == 1)
    }

    /// No source keeps a function type in a `Mutex` (the leaking spelling): callbacks go in a
    /// ``CallbackSlot`` (or a struct).
    @Test func noMutexHoldsAFunctionType() throws {
        let root = Binaries.packageRoot.appendingPathComponent("Sources")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".swift") }
        #expect(paths.count > 100)
        var found: [String] = []
        for path in paths {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            guard text.contains("Mutex<") else { continue }
            for line in text.split(separator: "\n") where line.contains("Mutex<")
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                && line.contains(#/Mutex<\(?(?:@\w+ )*\([^()]*\)(?: async)?(?: throws)? ->/#)
            {
                found.append("\(path): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "use CallbackSlot: \(found)")
    }
}
