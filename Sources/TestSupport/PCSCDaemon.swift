import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real pcscd (pcsc-lite, Debian package `pcscd`) for one test, in the foreground, with its own
/// reader.conf.d holding one vsmartcard-vpcd reader (`vsmartcard-vpcd`) on a free TCP port of 127.0.0.1:
/// the virtual card (`nfcbridge-sim --vpcd 127.0.0.1:PORT`) connects there.
///
/// pcsc-lite 1.9.9's daemon always serves `/run/pcscd/pcscd.comm` and keeps its pid in
/// `/run/pcscd/pcscd.pid`, so only one can run on the machine: `init` refuses, with a message saying so,
/// when another pcscd already runs (a system one: `systemctl stop pcscd.socket pcscd`). The tests that
/// use it are one serialized suite.
///
/// Ready when `init` / ``start()`` return (pcscd printed "daemon ready", never a sleep). ``stop()`` and
/// `deinit` end the daemon by its PID (SIGTERM) — only the daemon this object started.
public final class PCSCDaemon: @unchecked Sendable {
    /// pcscd (Debian `pcscd`).
    public static let executable = "/usr/sbin/pcscd"
    /// vsmartcard's pcsc-lite driver (Debian `vsmartcard-vpcd`).
    public static let vpcdDriver = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"
    /// The pid file every pcsc-lite daemon writes.
    static let pidFile = "/run/pcscd/pcscd.pid"

    /// The vpcd reader's friendly name; pcscd names its first slot `<name> 00 00`.
    public static let friendlyName = "NFCBridge vpcd"
    /// The name this daemon gives its vpcd reader (``friendlyName`` unless a test names it as a vendor's
    /// reader is named: "ACS ACR122U PICC Interface").
    public let readerFriendlyName: String
    /// The reader name pcscd lists (the friendly name and slot `00 00`).
    public var readerName: String { "\(readerFriendlyName) 00 00" }
    /// The TCP port vpcd listens on for the virtual card.
    public private(set) var port: Int
    /// The daemon's reader.conf.d.
    public let configurationDirectory: String
    private var process: ChildProcess?

    /// Writes the reader.conf.d and starts pcscd. Throws when pcscd or the vpcd driver is missing, or
    /// another pcscd runs. `ports` picks vpcd's port (a test can hand it a taken one first).
    public init(readerName friendlyName: String = PCSCDaemon.friendlyName, ports: () throws -> Int = LoopbackPort.free) throws {
        readerFriendlyName = friendlyName
        for file in [Self.executable, Self.vpcdDriver] where !FileManager.default.fileExists(atPath: file) {
            throw ChildProcessError("\(file) is missing: install pcscd and vsmartcard-vpcd (make deps)")
        }
        port = try ports()
        var template = Array((FileManager.default.temporaryDirectory.path + "/nfcbridge-pcscd-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ChildProcessError("mkdtemp failed for pcscd's reader.conf.d") }
        configurationDirectory = String(cString: made)
        // The port was free when picked, but any outgoing connection on the machine may take it as its
        // local port before vpcd binds it; pcscd then starts without the reader (and says "daemon
        // ready" all the same). Another free port is tried then.
        for attempt in 1...Self.portAttempts {
            try writeReaderEntry()
            do {
                try start()
                return
            } catch is VPCDPortTaken where attempt < Self.portAttempts {
                port = try ports()
            }
        }
    }

    /// How many ports ``init()`` tries before it gives up.
    static let portAttempts = 5

    /// vpcd could not listen on ``port`` (pcscd logged it and left the reader out).
    struct VPCDPortTaken: Error, CustomStringConvertible {
        let port: Int
        let log: String
        var description: String { "vpcd could not listen on 127.0.0.1:\(port) (taken): \(log)" }
    }

    /// The reader.conf.d entry for one vpcd reader on ``port``.
    private func writeReaderEntry() throws {
        // vpcd's DEVICENAME is /dev/null:PORT (Debian's /etc/reader.conf.d/vpcd); CHANNELID is ignored by it.
        let entry = """
            FRIENDLYNAME "\(readerFriendlyName)"
            DEVICENAME   /dev/null:\(port)
            LIBPATH      \(Self.vpcdDriver)
            CHANNELID    \(port)

            """
        try entry.write(toFile: configurationDirectory + "/vpcd", atomically: true, encoding: .utf8)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: configurationDirectory)
    }

    /// The pid of a pcscd that runs now (from its pid file), nil when none does.
    public static func runningDaemon() -> pid_t? {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return nil }
        return kill(pid, 0) == 0 || errno == EPERM ? pid : nil
    }

    /// Starts pcscd (again, after ``stop()``) with the same reader.conf.d and port.
    public func start() throws {
        guard process == nil else { return }
        if let other = Self.runningDaemon() {
            throw ChildProcessError(
                "another pcscd already runs (pid \(other), \(Self.pidFile)): pcsc-lite serves /run/pcscd/pcscd.comm only once, "
                    + "so the PC/SC end-to-end tests need it stopped (systemctl stop pcscd.socket pcscd)")
        }
        // -f: foreground, logs on stdout; -i: info level, so "daemon ready" is printed; -c: our reader.conf.d.
        let child = try ChildProcess(Self.executable, ["-f", "-i", "-c", configurationDirectory])
        guard child.waitForOutput("daemon ready", timeout: .seconds(30)) else {
            child.terminate()
            throw ChildProcessError("pcscd did not get ready: \(child.output)\(child.errorOutput)")
        }
        // pcsc-lite 1.9.9 / vsmartcard's ifd-vpcd.c: a reader whose channel cannot be opened is logged
        // ("Could not initialize connection to virtual ICC", "… init failed.") and left out.
        let log = child.output + child.errorOutput
        if log.contains("Could not initialize connection to virtual ICC") || log.contains("\(readerFriendlyName) init failed") {
            child.terminate()
            throw VPCDPortTaken(port: port, log: log)
        }
        process = child
    }

    /// Stops pcscd (SIGTERM; pcscd removes /run/pcscd on its way out) and waits for it to end.
    public func stop() {
        process?.terminate()
        process = nil
    }

    /// The daemon's log so far.
    public var log: String { (process?.output ?? "") + (process?.errorOutput ?? "") }
}
