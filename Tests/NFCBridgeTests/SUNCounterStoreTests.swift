import Foundation
import Testing

@testable import NFCBridge

/// The per-UID SDM read counters of NTAG 424 DNA SUN messages (state_dir/sun-counters).
@Suite struct SUNCounterStoreTests {
    let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]

    @Test func aCounterMustGrowPerUID() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let store = SUNCounterStore(directory: dir.path)
        #expect(store.admit(uid: uid, counter: 5) == .fresh(previous: nil))
        #expect(store.admit(uid: uid, counter: 5) == .replayed(last: 5))
        #expect(store.admit(uid: uid, counter: 4) == .replayed(last: 5))
        #expect(store.admit(uid: uid, counter: 6) == .fresh(previous: 5))
        // Another tag has its own counter.
        #expect(store.admit(uid: [0x04, 1, 2, 3, 4, 5, 6], counter: 1) == .fresh(previous: nil))
    }

    @Test func theCountersSurviveARestart() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        do {
            let store = SUNCounterStore(directory: dir.path)
            _ = store.admit(uid: uid, counter: 61)
            await store.flush()
            #expect(store.writeFailure == nil)
        }
        let reopened = SUNCounterStore(directory: dir.path)
        #expect(reopened.recovery == nil)
        #expect(reopened.last(for: uid) == 61)
        #expect(reopened.admit(uid: uid, counter: 61) == .replayed(last: 61))
    }

    @Test func unreadableLinesAreSkippedAndNamed() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let text = "nfcbridge sun-counters 1\n04DE5F1EACC040 61\nnot a line\n0401 99999999\nZZ 3\n"
        try AtomicFile.write(Array(text.utf8), to: dir.path + "/" + SUNCounterStore.fileName)
        let store = SUNCounterStore(directory: dir.path)
        #expect(store.last(for: uid) == 61)
        #expect(store.recovery?.contains("skipped 3 unreadable line(s)") == true)
    }

    /// A file too large is not read: the store starts empty and says so (the agent still starts).
    @Test func aFileTooLargeIsNotRead() throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let huge = [UInt8](repeating: 0x41, count: 1 + 64 + SUNCounterStore.maxEntries * 30)
        try AtomicFile.write(huge, to: dir.path + "/" + SUNCounterStore.fileName)
        let store = SUNCounterStore(directory: dir.path)
        #expect(store.recovery?.contains("starting with no SUN counters") == true)
        #expect(store.admit(uid: uid, counter: 1) == .fresh(previous: nil))
    }

    /// Past ``SUNCounterStore/maxEntries`` UIDs the one seen longest ago is forgotten.
    @Test func theStoreIsBounded() async throws {
        let dir = StateDirectory()
        try AtomicFile.makeDirectory(dir.path)
        let store = SUNCounterStore(directory: dir.path)
        for n in 0...SUNCounterStore.maxEntries {
            _ = store.admit(uid: [0x04, 0x00, 0x00, 0x00, UInt8(n >> 16), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)], counter: 1)
        }
        #expect(store.last(for: [0x04, 0, 0, 0, 0, 0, 0]) == nil)
        #expect(store.last(for: [0x04, 0, 0, 0, 0, 0, 1]) == 1)
        await store.flush()
        let reopened = SUNCounterStore(directory: dir.path)
        #expect(reopened.recovery == nil)
        #expect(reopened.last(for: [0x04, 0, 0, 0, 0, 0, 1]) == 1)
    }
}
