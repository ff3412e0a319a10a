import Foundation
import NFCCore
import Testing
import TestSupport

/// The PC/SC backend end to end: the built `nfcbridge`, libpcsclite, a real pcscd started by the test in
/// the foreground with its own reader.conf.d (`PCSCDaemon`) and vsmartcard's vpcd reader on a free port.
/// pcsc-lite serves one `/run/pcscd/pcscd.comm` per machine, so the suite is serialized and each test
/// fails (never skips) when another pcscd runs.
@Suite(.serialized) struct PCSCEndToEndTests {
    /// `nfcbridge readers` lists the virtual reader as `pcsc:<name>`; `--probe --json` opens it.
    @Test func readersListsTheVirtualReader() throws {
        let daemon = try PCSCDaemon()
        defer { daemon.stop() }
        let listed = try runNFCBridge(["readers"])
        #expect(listed.status == 0, "\(listed.err)")
        #expect(listed.out.split(separator: "\n").contains("pcsc:\(daemon.readerName)"), "\(listed.out)")

        let probed = try runNFCBridge(["readers", "--probe", "--json"])
        #expect(probed.status == 0, "\(probed.err)")
        let line = try #require(probed.out.split(separator: "\n").first { $0.contains(daemon.readerName) })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["connstring"] as? String == "pcsc:\(daemon.readerName)")
        #expect(json["name"] as? String == daemon.readerName)
    }

    /// vpcd's port taken between picking it and pcscd's start (any outgoing connection may take a free
    /// port as its local one): pcscd says "daemon ready" without the reader, so `PCSCDaemon` sees that in
    /// its log and starts again on another port, and the reader is there.
    @Test func aTakenVPCDPortIsLeftForAnother() throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(holder >= 0)
        defer { close(holder) }
        var address = LoopbackPort.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let taken = Int(UInt16(bigEndian: address.sin_port))
        var picks = 0
        let daemon = try PCSCDaemon(ports: {
            picks += 1
            return picks == 1 ? taken : try LoopbackPort.free()
        })
        defer { daemon.stop() }
        #expect(picks == 2)
        #expect(daemon.port != taken)
        let listed = try runNFCBridge(["readers"])
        #expect(listed.out.split(separator: "\n").contains("pcsc:\(daemon.readerName)"), "\(listed.out)\n\(daemon.log)")
    }

    /// An empty reader: `scan` by index and by name waits for a card and exits 3; an unknown reader exits 2
    /// naming the readers pcscd knows.
    @Test func anEmptyReaderGivesNoTagAndAnUnknownOneIsNamed() throws {
        let daemon = try PCSCDaemon()
        defer { daemon.stop() }
        for device in ["pcsc:0", "pcsc:\(daemon.readerName)"] {
            let result = try runNFCBridge(["scan", "--device", device, "--once", "--timeout", "0.5"])
            #expect(result.status == 3, "\(device): \(result.err)")
            #expect(result.err.contains("no_tag"), "\(device): \(result.err)")
        }
        let unknown = try runNFCBridge(["scan", "--device", "pcsc:No Such Reader", "--once", "--timeout", "0.5"])
        #expect(unknown.status == 2, "\(unknown.err)")
        #expect(unknown.err.contains("reader_unavailable"), "\(unknown.err)")
        #expect(unknown.err.contains(daemon.readerName), "the message lists the readers pcscd knows: \(unknown.err)")
    }

    /// pcscd not running: `scan` on a PC/SC reader exits 2 saying pcscd is not running; `readers` no longer
    /// lists the reader. Started again, both work again.
    @Test func pcscdStoppedIsSaidAndRestartedIsUsedAgain() throws {
        let daemon = try PCSCDaemon()
        defer { daemon.stop() }
        daemon.stop()
        let down = try runNFCBridge(["scan", "--device", "pcsc:0", "--once", "--timeout", "0.5"])
        #expect(down.status == 2, "\(down.err)")
        #expect(down.err.contains("reader_unavailable") && down.err.contains("pcscd is not running"), "\(down.err)")
        let listed = try runNFCBridge(["readers"])
        #expect(!listed.out.contains(daemon.readerName), "\(listed.out)")

        try daemon.start()
        let back = try runNFCBridge(["readers"])
        #expect(back.out.split(separator: "\n").contains("pcsc:\(daemon.readerName)"), "\(back.out)")
    }

    /// `nfcbridge run` on the PC/SC reader: `reader` is `ok`; pcscd stopped makes it `absent` with a
    /// `reader_unavailable` error event; pcscd started again brings it back to `ok` (a new context, with
    /// the reader loop's back-off). `iso15693` in the polled modulations is accepted on this backend.
    @Test func theAgentSurvivesPCSCDStoppedAndStartedAgain() async throws {
        let daemon = try PCSCDaemon()
        defer { daemon.stop() }
        try await withPCSCAgentRun(on: daemon, modulations: "[iso14443a, iso15693]") { run, okAt, ok in
            let watcher = run.watcher
            #expect("\(ok)".contains(daemon.readerName), "\(ok)")

            daemon.stop()
            let (goneAt, _, _) = await watcher.next("reader", after: okAt) { $0["state"] as? String == "absent" }
            let (_, error, _) = await watcher.next("event/error", after: okAt)
            #expect((error["error"] as? [String: Any])?["code"] as? String == "reader_unavailable", "\(error)")

            try daemon.start()
            await watcher.next("reader", after: goneAt) { $0["state"] as? String == "ok" }
            run.agent.expectCleanStop()
        }
    }

    /// The libnfc backend keeps refusing `iso15693` at start-up; `reader.backend: libnfc` with a `pcsc:`
    /// device is a configuration error.
    @Test func theLibNFCBackendStillRefusesISO15693() throws {
        let folder = try TemporaryFolder()
        let refused = try folder.write("iso.yaml", """
            id: e2e
            reader: {device: "pn532_uart:/dev/null", polling: {modulations: [iso15693]}}
            state_dir: \(folder.path)/state
            """)
        let iso = try runNFCBridge(["run", "--config", refused])
        #expect(iso.status == 2, "\(iso.err)")
        #expect(iso.err.contains("iso15693"), "\(iso.err)")
        let mismatch = try folder.write("mismatch.yaml", """
            id: e2e
            reader: {device: "pcsc:0", backend: libnfc}
            state_dir: \(folder.path)/state
            """)
        let wrong = try runNFCBridge(["run", "--config", mismatch])
        #expect(wrong.status == 2, "\(wrong.err)")
        #expect(wrong.err.contains("reader.backend is libnfc"), "\(wrong.err)")
    }
}
