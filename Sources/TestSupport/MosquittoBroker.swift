import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Mosquitto broker for one test, on 127.0.0.1 and a random port, configured per scenario:
/// anonymous, password file (`mosquitto_passwd -b`), and/or TLS with a throw-away CA made by the
/// `openssl` CLI at test time (no private key is ever committed).
///
/// The broker is ready when `init`/`start()` return: readiness is detected by connecting to the port,
/// never by sleeping. `stop()`, `restart()` (same port) and `deinit` terminate the process by its PID
/// — only the broker this object started — and `deinit` removes the temporary directory.
/// A missing `/usr/sbin/mosquitto` is an error with a clear message, never a skip.
///
/// When the tests run as root, Mosquitto drops to user `mosquitto`, so the directory is world-readable
/// (0755, files 0644): peers-mqtt.md §6.1.
public final class MosquittoBroker: @unchecked Sendable {
    /// What the broker's listener accepts.
    public struct Options: Sendable {
        /// User name → password. Empty: anonymous clients are allowed.
        public var users: [String: String]
        /// TLS on the listener, or plain TCP.
        public var tls: TLSIdentity?
        /// Contents of an `acl_file` (`user <name>` sections with `topic read|write|readwrite <filter>`
        /// lines, `pattern` lines with `%u`/`%c`), or `nil` for no ACL.
        public var acl: String?
        /// Keep sessions (subscriptions, queued QoS 1 messages of offline clients) and retained
        /// messages across ``MosquittoBroker/restart()``: Mosquitto saves them on SIGTERM and loads them
        /// at start. A watcher with a persistent session then misses nothing while the broker is down.
        public var persistence: Bool
        /// More configuration appended after the listener's (e.g. a bridge: `connection …`).
        public var extraConfiguration: String

        /// Creates options; the default is an anonymous plain-TCP listener without ACL or persistence.
        public init(
            users: [String: String] = [:], tls: TLSIdentity? = nil, acl: String? = nil, persistence: Bool = false,
            extraConfiguration: String = ""
        ) {
            self.users = users
            self.tls = tls
            self.acl = acl
            self.persistence = persistence
            self.extraConfiguration = extraConfiguration
        }
    }

    /// Which names the broker's TLS certificate carries.
    public enum TLSIdentity: Sendable {
        /// `DNS:localhost, IP:127.0.0.1` — what a client connecting to the loopback address verifies.
        case loopback
        /// Only `DNS:<name>`: a client connecting to 127.0.0.1 must refuse it (hostname mismatch).
        case hostname(String)
    }

    /// The Mosquitto binary (Debian package `mosquitto`, installed by `make deps`).
    public static let executable = "/usr/sbin/mosquitto"
    static let passwordTool = "/usr/bin/mosquitto_passwd"
    static let openssl = "/usr/bin/openssl"

    /// The listener port on 127.0.0.1 (fixed once `init` returned).
    public private(set) var port: Int
    /// The temporary directory holding the configuration, password file, certificates and log.
    public let directory: URL
    /// The options the broker was made with.
    public let options: Options

    private let lock = NSLock()
    private var process: ChildProcess?

    /// `mqtt://127.0.0.1:<port>`, or `mqtts://…` for a TLS listener.
    public var url: String { "\(options.tls == nil ? "mqtt" : "mqtts")://127.0.0.1:\(port)" }
    /// The test CA certificate (PEM) that signed the broker certificate; `nil` without TLS.
    public var caFile: String? { options.tls == nil ? nil : directory.appendingPathComponent("ca.crt").path }
    /// The broker's log so far (stderr and stdout), for failure messages.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    /// `true` while the broker process runs.
    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    private var configURL: URL { directory.appendingPathComponent("mosquitto.conf") }
    private var passwordURL: URL { directory.appendingPathComponent("passwd") }
    private var logURL: URL { directory.appendingPathComponent("mosquitto.log") }

    /// Prepares a broker (configuration, password file, certificates) and, unless `start` is false,
    /// starts it and waits until it accepts connections. With `start: false` the port is reserved on
    /// paper only — for "broker down at start" tests.
    public init(_ options: Options = Options(), start: Bool = true) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw MosquittoBrokerError("Mosquitto is not installed at \(Self.executable): run `make deps` "
                + "(Debian packages mosquitto and mosquitto-clients). The MQTT tests need a real broker.")
        }
        self.options = options
        self.directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nfcbridge-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        do {
            self.port = try LoopbackPort.free()
            if !options.users.isEmpty { try writePasswordFile(options.users) }
            if let identity = options.tls { try makeCertificates(identity) }
            try writeConfiguration()
            if start { try startOnSomeFreePort() }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Another process may grab the free port before Mosquitto binds it: then pick another (3 tries).
    private func startOnSomeFreePort() throws {
        for _ in 1..<3 {
            do {
                return try start()
            } catch let error as MosquittoBrokerError where error.description.contains("Address already in use") {
                port = try LoopbackPort.free()
                try writeConfiguration()
            }
        }
        try start()
    }

    /// Starts the broker (no-op while running) and returns once it accepts TCP connections.
    public func start() throws {
        try lock.withLock {
            if process?.isRunning == true { return }
            process = try ChildProcess(Self.executable, ["-c", configURL.path], outputFile: logURL.path)
        }
        try waitUntilAccepting()
    }

    /// Stops the broker (SIGTERM, SIGKILL if it does not exit within 5 s, 60 s with persistence:
    /// mosquitto writes its sessions on the way out, and a busy disk may take longer) and reaps it.
    public func stop() {
        let running: ChildProcess? = lock.withLock {
            defer { process = nil }
            return process
        }
        running?.send(SIGCONT)  // a paused broker must be able to act on SIGTERM
        running?.terminate(grace: options.persistence ? .seconds(60) : .seconds(5))
    }

    /// Stops and starts the broker on the same port (connected clients see the connection drop).
    public func restart() throws {
        stop()
        try start()
    }

    /// Freezes the broker (SIGSTOP): connections stay open but nothing is answered — a publish
    /// then waits for its acknowledgement, as over a network that silently stopped delivering.
    public func pause() {
        lock.withLock { process }?.send(SIGSTOP)
    }

    /// Lets a paused broker run again (SIGCONT).
    public func resume() {
        lock.withLock { process }?.send(SIGCONT)
    }

    /// Sets (adds or changes) a user's password in the password file. A running broker reads it again
    /// on `reload()` or `restart()`.
    public func setPassword(_ password: String, for user: String) throws {
        try runTool(Self.passwordTool, ["-b", passwordURL.path, user, password])
        try makeReadable(passwordURL)
    }

    /// Sends SIGHUP: Mosquitto re-reads its configuration and password file. Returns once it has
    /// begun to (its log says `Reloading config.` once more): Mosquitto handles signals and
    /// packets on one thread, and reloads right after that line, so every packet it handles later
    /// — a CONNECT sent once this returned — meets the new configuration and passwords. (Returning
    /// on the signal alone let a client reconnect with the old password before the reload.)
    public func reload() throws {
        guard let running = lock.withLock({ process }), running.isRunning else {
            throw MosquittoBrokerError("the broker is not running")
        }
        let before = reloads
        running.send(SIGHUP)
        let deadline = Date(timeIntervalSinceNow: 15)
        while reloads == before {
            guard Date() < deadline, running.isRunning else {
                throw MosquittoBrokerError("mosquitto did not reload its configuration on SIGHUP within 15 s. Log:\n\(log)")
            }
            usleep(5_000)  // between reads of the log, which is the only sign of the reload
        }
    }

    /// How many times the log says the broker reloaded its configuration.
    private var reloads: Int { log.components(separatedBy: "Reloading config.").count - 1 }

    // MARK: - Files

    private func writeConfiguration() throws {
        var lines = [
            "# Generated by MosquittoBroker for one test.",
            "per_listener_settings false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "listener \(port) 127.0.0.1",
            "allow_anonymous \(options.users.isEmpty)",
        ]
        if options.persistence {
            // Writable by the `mosquitto` user the broker drops to when the tests run as root.
            let store = directory.appendingPathComponent("persistence")
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: store.path)
            lines += ["persistence true", "persistence_location \(store.path)/"]
        } else {
            lines.append("persistence false")
        }
        if !options.users.isEmpty { lines.append("password_file \(passwordURL.path)") }
        if let acl = options.acl {
            let aclURL = directory.appendingPathComponent("acl")
            try acl.write(to: aclURL, atomically: true, encoding: .utf8)
            try makeReadable(aclURL)
            lines.append("acl_file \(aclURL.path)")
        }
        if options.tls != nil {
            lines += [
                "cafile \(directory.appendingPathComponent("ca.crt").path)",
                "certfile \(directory.appendingPathComponent("server.crt").path)",
                "keyfile \(directory.appendingPathComponent("server.key").path)",
                "tls_version tlsv1.2",
            ]
        }
        if !options.extraConfiguration.isEmpty { lines.append(options.extraConfiguration) }
        try (lines.joined(separator: "\n") + "\n").write(to: configURL, atomically: true, encoding: .utf8)
        try makeReadable(configURL)
    }

    private func writePasswordFile(_ users: [String: String]) throws {
        var first = true
        for (user, password) in users.sorted(by: { $0.key < $1.key }) {
            // -c creates (overwrites) the file; -b takes the password from the command line.
            try runTool(Self.passwordTool, (first ? ["-c"] : []) + ["-b", passwordURL.path, user, password])
            first = false
        }
        try makeReadable(passwordURL)
    }

    /// A test CA (EC P-256, valid one day) and a broker certificate it signed for `identity`'s names.
    private func makeCertificates(_ identity: TLSIdentity) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.openssl) else {
            throw MosquittoBrokerError("openssl is not installed at \(Self.openssl): TLS tests need the openssl CLI")
        }
        let path = { (name: String) in self.directory.appendingPathComponent(name).path }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try runTool(Self.openssl, ["req", "-x509"] + key + [
            "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "1", "-subj", "/CN=NFCBridge test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        let (commonName, names) = switch identity {
        case .loopback: ("localhost", "DNS:localhost,IP:127.0.0.1")
        case .hostname(let name): (name, "DNS:\(name)")
        }
        try runTool(Self.openssl, ["req"] + key + [
            "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=\(commonName)",
        ])
        try "subjectAltName=\(names)\nextendedKeyUsage=serverAuth\n".write(
            toFile: path("server.ext"), atomically: true, encoding: .utf8)
        try runTool(Self.openssl, [
            "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-out", path("server.crt"), "-days", "1", "-extfile", path("server.ext"),
        ])
        for name in ["ca.crt", "server.crt", "server.key"] { try makeReadable(URL(fileURLWithPath: path(name))) }
    }

    private func makeReadable(_ url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
    }

    private func runTool(_ tool: String, _ arguments: [String]) throws {
        let result = try runProcess(tool, arguments)
        guard result.status == 0 else {
            throw MosquittoBrokerError("\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.err)")
        }
    }

    // MARK: - Readiness

    /// Connects until the listener accepts; fails with the broker's log if it exits or never listens.
    private func waitUntilAccepting() throws {
        let deadline = Date(timeIntervalSinceNow: 15)
        while Date() < deadline {
            if LoopbackPort.accepts(port) { return }
            guard isRunning else {
                throw MosquittoBrokerError("mosquitto exited before listening on 127.0.0.1:\(port). Log:\n\(log)")
            }
            usleep(20_000)  // between connection attempts, not a wait for readiness
        }
        stop()
        throw MosquittoBrokerError("mosquitto did not accept connections on 127.0.0.1:\(port) within 15 s. Log:\n\(log)")
    }
}

/// Starting or driving the test broker failed; the text says why (with the broker log when useful).
public struct MosquittoBrokerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
