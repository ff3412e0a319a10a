import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A two-node RabbitMQ cluster (Debian's `rabbitmq-server` 3.10 with the `rabbitmq_mqtt` plugin) on
/// 127.0.0.1 for one test: nodes `fleet-a-<n>@localhost` and `fleet-b-<n>@localhost`, each with its own
/// ports (AMQP, MQTT, Erlang distribution) and `RABBITMQ_*` directories under a temporary directory,
/// one Erlang cookie of their own, and their own port mapper (`epmd` on a random port, so nothing
/// meets the system's). Node B joins node A's cluster; a policy mirrors the MQTT plugin's
/// subscription queues (`^mqtt-subscription-`, `ha-mode: all`), without which a client whose node
/// died cannot subscribe at QoS 1 again on the other ("home node … is down or inaccessible").
///
/// Readiness: a node is up when it wrote its PID file and its MQTT port accepts connections, never
/// by sleeping. `kill(_:)` ends a node with SIGKILL (a crash); `stop()` and `deinit` end every process
/// this object started — by its PID only — and `deinit` removes the directory. A missing
/// `rabbitmq-server` is an error naming the package, never a skip.
///
/// Slow: a node takes 10–80 s to boot on a loaded 2-core machine, and `rabbitmqctl` 3–15 s a call.
public final class RabbitMQCluster: @unchecked Sendable {
    /// One node of the cluster.
    public struct Node: Sendable {
        /// The Erlang node name, `fleet-a-…@localhost`.
        public let name: String
        /// MQTT listener on 127.0.0.1.
        public let mqttPort: Int
        /// AMQP listener (unused by the tests; RabbitMQ always opens one).
        public let amqpPort: Int
        /// Erlang distribution port.
        public let distributionPort: Int
        /// Its `RABBITMQ_*` directories and configuration.
        public let directory: URL

        /// `mqtt://127.0.0.1:<mqttPort>`.
        public var url: String { "mqtt://127.0.0.1:\(mqttPort)" }
    }

    /// `/usr/lib/rabbitmq/bin/rabbitmq-server` (Debian package `rabbitmq-server`, installed by `make deps`).
    public static let server = "/usr/lib/rabbitmq/bin/rabbitmq-server"
    static let control = "/usr/lib/rabbitmq/bin/rabbitmqctl"
    static let portMapper = "/usr/bin/epmd"

    /// The two nodes: `[A, B]`.
    public let nodes: [Node]
    /// Everything of this cluster: the nodes' directories, the cookie's home, the logs.
    public let directory: URL
    private let home: URL
    private let epmdPort: Int
    private let lock = NSLock()
    private var epmd: ChildProcess?
    /// The `rabbitmq-server` scripts (each waits for its node's Erlang VM).
    private var scripts: [String: ChildProcess] = [:]

    /// Starts both nodes (side by side), joins B to A, sets the mirroring policy; returns when both
    /// accept MQTT connections as one cluster.
    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.server) else {
            throw RabbitMQClusterError("RabbitMQ is not installed at \(Self.server): run `make deps` (Debian package "
                + "rabbitmq-server). The cluster tests need a real broker.")
        }
        let tag = String(UUID().uuidString.prefix(8)).lowercased()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfcbridge-rabbitmq-\(tag)")
        var taken: Set<Int> = []
        func port() throws -> Int {
            while true {
                let candidate = try LoopbackPort.free()
                if taken.insert(candidate).inserted { return candidate }
            }
        }
        epmdPort = try port()
        nodes = try ["a", "b"].map { letter in
            Node(name: "fleet-\(letter)-\(tag)@localhost", mqttPort: try port(), amqpPort: try port(),
                 distributionPort: try port(), directory: directory.appendingPathComponent("node-\(letter)"))
        }
        self.directory = directory
        home = directory.appendingPathComponent("home")
        do {
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            // One cookie for the nodes and rabbitmqctl: $HOME/.erlang.cookie, readable by its owner only.
            let cookie = home.appendingPathComponent(".erlang.cookie")
            try Data(UUID().uuidString.replacingOccurrences(of: "-", with: "").utf8).write(to: cookie)
            try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: cookie.path)
            try start()
        } catch {
            stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The node's Erlang VM PID (from its PID file), once it booted.
    public func pid(of node: Node) -> pid_t? {
        guard let text = try? String(contentsOf: node.directory.appendingPathComponent("pid"), encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return nil }
        return pid
    }

    /// Kills `node`'s Erlang VM with SIGKILL — a crashed node — and waits until its script has ended.
    public func kill(_ node: Node) {
        if let pid = pid(of: node) { _ = Glibc.kill(pid, SIGKILL) }
        let script = lock.withLock { scripts.removeValue(forKey: node.name) }
        script?.terminate()
    }

    /// Ends every node and the port mapper (SIGTERM, then SIGKILL), by PID. Safe to call twice.
    public func stop() {
        for node in nodes {
            if let pid = pid(of: node) {
                _ = Glibc.kill(pid, SIGKILL)
            }
        }
        let (running, mapper) = lock.withLock { () -> ([ChildProcess], ChildProcess?) in
            defer {
                scripts = [:]
                epmd = nil
            }
            return (Array(scripts.values), epmd)
        }
        for script in running { script.terminate() }
        mapper?.terminate()
    }

    /// Runs `rabbitmqctl -n <node> arguments…` and returns its output; throws with it when it fails.
    @discardableResult
    public func control(_ node: Node, _ arguments: [String]) throws -> String {
        let result = try runProcess(Self.control, ["-n", node.name] + arguments, environment: environment(for: nil),
                                    timeout: .seconds(300))
        guard result.status == 0 else {
            throw RabbitMQClusterError("rabbitmqctl -n \(node.name) \(arguments.joined(separator: " ")) failed (\(result.status)): "
                + "\(result.out) \(result.err)")
        }
        return result.out
    }

    /// The node's log so far, for failure messages.
    public func log(of node: Node) -> String {
        let logs = node.directory.appendingPathComponent("log")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: logs.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.compactMap {
            try? String(contentsOf: logs.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
    }

    // MARK: - Start-up

    private func start() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.portMapper) else {
            throw RabbitMQClusterError("epmd is not installed at \(Self.portMapper) (Debian package erlang-base, a rabbitmq-server dependency)")
        }
        let mapper = try ChildProcess(Self.portMapper, ["-port", String(epmdPort)],
                                      outputFile: directory.appendingPathComponent("epmd.log").path)
        lock.withLock { epmd = mapper }
        try waitUntil("epmd accepts on 127.0.0.1:\(epmdPort)", timeout: 30) { LoopbackPort.accepts(epmdPort) }
        for node in nodes { try launch(node) }
        for node in nodes { try waitUntilUp(node) }
        // Node B joins A's cluster (a fresh node may join; its app must be stopped meanwhile).
        let (a, b) = (nodes[0], nodes[1])
        try control(b, ["stop_app"])
        try control(b, ["join_cluster", a.name])
        try control(b, ["start_app"])
        try waitUntilUp(b)
        try control(a, ["set_policy", "--apply-to", "queues", "mqtt-subscriptions-mirrored", "^mqtt-subscription-",
                        #"{"ha-mode":"all"}"#])
        let status = try control(a, ["cluster_status"])
        guard status.contains(a.name), status.contains(b.name) else {
            throw RabbitMQClusterError("the nodes did not form one cluster: \(status)")
        }
    }

    /// The environment of `node`'s server, or of rabbitmqctl (`nil`): the cookie's home, the port
    /// mapper, and no system-wide rabbitmq-env.conf.
    private func environment(for node: Node?) -> [String: String] {
        var environment = [
            "HOME": home.path, "ERL_EPMD_PORT": String(epmdPort),
            "RABBITMQ_CONF_ENV_FILE": directory.appendingPathComponent("rabbitmq-env.conf").path,
        ]
        guard let node else { return environment }
        let path = { (name: String) in node.directory.appendingPathComponent(name).path }
        environment.merge([
            "RABBITMQ_NODENAME": node.name, "RABBITMQ_NODE_PORT": String(node.amqpPort),
            "RABBITMQ_DIST_PORT": String(node.distributionPort), "RABBITMQ_MNESIA_BASE": path("mnesia"),
            "RABBITMQ_LOG_BASE": path("log"), "RABBITMQ_CONFIG_FILE": path("rabbitmq.conf"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": path("advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": path("enabled_plugins"), "RABBITMQ_PID_FILE": path("pid"),
            "RABBITMQ_GENERATED_CONFIG_DIR": path("generated"), "RABBITMQ_PLUGINS_EXPAND_DIR": path("plugins-expand"),
        ]) { _, new in new }
        return environment
    }

    private func launch(_ node: Node) throws {
        let manager = FileManager.default
        for folder in ["mnesia", "log", "generated", "plugins-expand"] {
            try manager.createDirectory(at: node.directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data().write(to: directory.appendingPathComponent("rabbitmq-env.conf"))
        // Anonymous MQTT as the guest user, allowed from anywhere (the listeners are on loopback anyway).
        let configuration = """
            listeners.tcp.1 = 127.0.0.1:\(node.amqpPort)
            mqtt.listeners.tcp.1 = 127.0.0.1:\(node.mqttPort)
            mqtt.allow_anonymous = true
            loopback_users = none
            log.file.level = info
            log.console = false

            """
        try configuration.write(to: node.directory.appendingPathComponent("rabbitmq.conf"), atomically: true, encoding: .utf8)
        try "[rabbitmq_mqtt].\n".write(to: node.directory.appendingPathComponent("enabled_plugins"), atomically: true, encoding: .utf8)
        let script = try ChildProcess(Self.server, [], environment: environment(for: node))
        lock.withLock { scripts[node.name] = script }
    }

    private func waitUntilUp(_ node: Node) throws {
        try waitUntil("\(node.name) boots and accepts MQTT on 127.0.0.1:\(node.mqttPort)", timeout: 300) {
            guard let script = lock.withLock({ scripts[node.name] }), script.isRunning else {
                throw RabbitMQClusterError("\(node.name) exited while booting: \(lock.withLock { scripts[node.name] }?.output ?? "")\n\(log(of: node))")
            }
            return pid(of: node) != nil && LoopbackPort.accepts(node.mqttPort)
        }
    }

    /// Polls `condition` (a failure guard of `timeout` seconds, not a timing assumption).
    private func waitUntil(_ what: String, timeout: TimeInterval, _ condition: () throws -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)  // between checks, not a wait for readiness
        }
        throw RabbitMQClusterError("timed out waiting until \(what)")
    }
}

/// Starting or driving the test cluster failed; the text says why (with the node's log when useful).
public struct RabbitMQClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
