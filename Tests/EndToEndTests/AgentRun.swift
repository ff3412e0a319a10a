import Foundation
import MQTTClient
import Testing
import TestSupport

/// `nfcbridge run` on `nfcbridge-sim` (or on a PC/SC reader) as the end-to-end tests start it, and
/// everything around it: a broker, the simulator, a temporary folder with the configuration and the
/// agent's state, a watcher subscribed to what the agent publishes, and the agent. Made only by
/// ``withAgentRun(_:isolation:_:)``, which starts them in that order and stops every one of them
/// (also those a test started later: a second agent, a second simulator, another watcher) when the
/// test's body ends, returned or thrown.
final class AgentRun: @unchecked Sendable {
    /// Where the agent's reader is.
    enum Reader {
        /// A simulator with the run's scenario, on its own pty link.
        case simulator
        /// A simulator with the run's scenario, its pty link at `link` in the run's folder (so a
        /// simulator started later, ``startSimulator(scenario:arguments:linkPath:)``, can take the
        /// same link: a reader plugged in again).
        case simulatorAt(link: String)
        /// No simulator: the agent's device is `pn532_uart:<folder>/<link>`, where nothing answers
        /// (an unplugged reader).
        case absent(link: String)
        /// No simulator: the agent's device is `connstring` (`pcsc:<reader>`, a reader the test runs).
        case device(String)
    }

    /// How the run is set up; the defaults are the usual end-to-end run (a healthy broker, one
    /// simulator, a watcher on `nfc/e2e/#`, the agent started with Home Assistant discovery on).
    struct Options {
        /// The simulator's scenario (YAML), none by default.
        var scenario: String?
        /// More arguments for the simulator (`--trace`, `--drop-one-in 500`).
        var simulatorArguments: [String] = []
        /// Where the agent's reader is.
        var reader = Reader.simulator
        /// What the broker's listener accepts (users, TLS, ACL, persistence, bridges).
        var broker = MosquittoBroker.Options()
        /// The broker is down when the agent starts: stopped once the watcher is connected (never
        /// started when there is no watcher).
        var brokerDown = false
        /// The agent reaches the broker through a ``TCPProxy`` (``AgentRun/proxy``) that the test
        /// can cut.
        var throughProxy = false
        /// Nodes listed in `mqtt.url` before the run's broker (a failover list: `[these…, broker]`).
        var nodesBefore: [String] = []
        /// `reader.polling.interval_ms` (the agent's default when nil).
        var intervalMilliseconds: Int? = 100
        /// `reader.polling.modulations` (the default set when nil).
        var modulations: String?
        /// The `presence` section (the agent's default when nil).
        var presence: String? = e2ePresence
        /// More lines of the `mqtt` mapping (each `key: value`, without indentation).
        var mqtt: [String] = []
        /// Written to `password` in the folder, which `mqtt.password_file` names.
        var password: String?
        /// `homeassistant.enabled`.
        var homeAssistant = true
        /// Appended to the configuration (top-level sections: `dump: {on_scan: true}`).
        var extra = ""
        /// The watcher's subscriptions, or nil for no watcher at the start
        /// (``connectWatcher(clientID:filters:persistent:protocolVersion:tls:)`` makes one later).
        var watcherFilters: [String]? = ["\(e2eRoot)/#"]
        /// The watcher keeps an MQTT 3.1.1 session across reconnects
        /// (``Watcher/connect(_:clientID:filters:persistent:protocolVersion:tls:)``).
        var persistentWatcher = false
        /// The agent is started with the run; when false the test starts it (``startAgent(environment:launcher:)``).
        var startsAgent = true
    }

    let options: Options
    /// The broker the agent publishes to.
    private(set) var broker: MosquittoBroker!
    /// The temporary folder: `config.yaml`, the agent's `state/`, reader links of the test's choosing.
    private(set) var folder: TemporaryFolder!
    /// The path of the agent's configuration file.
    private(set) var config = ""
    /// Between the agent and the broker with ``Options/throughProxy``.
    private(set) var proxy: TCPProxy?
    private var simulators: [SimulatorProcess] = []
    private var watchers: [Watcher] = []
    private var agents: [ChildProcess] = []
    private var stopActions: [@Sendable () async -> Void] = []

    fileprivate init(_ options: Options) { self.options = options }

    /// The first simulator (the one of ``Options/reader``).
    var simulator: SimulatorProcess {
        guard let first = simulators.first else { preconditionFailure("this run has no simulator") }
        return first
    }

    /// The first watcher (the one of ``Options/watcherFilters``, or the first the test connected).
    var watcher: Watcher {
        guard let first = watchers.first else { preconditionFailure("this run has no watcher") }
        return first
    }

    /// The agent started last.
    var agent: ChildProcess {
        guard let last = agents.last else { preconditionFailure("this run has not started the agent") }
        return last
    }

    /// The agent's device (`pn532_uart:<link>`).
    var device: String {
        switch options.reader {
        case .simulator: simulator.connstring
        case .simulatorAt(let link), .absent(let link): "pn532_uart:\(folder.path)/\(link)"
        case .device(let connstring): connstring
        }
    }

    /// The path of the reader link in the folder (``Reader/simulatorAt(link:)``, ``Reader/absent(link:)``),
    /// or the simulator's own.
    var linkPath: String {
        switch options.reader {
        case .simulator: simulator.linkPath
        case .simulatorAt(let link), .absent(let link): folder.path + "/" + link
        case .device: preconditionFailure("the run's reader is no pty link")
        }
    }

    fileprivate func start() async throws {
        folder = try TemporaryFolder()
        let connectsWatcher = options.watcherFilters != nil
        broker = try MosquittoBroker(options.broker, start: connectsWatcher || !options.brokerDown)
        if let filters = options.watcherFilters {
            try await connectWatcher(filters: filters, persistent: options.persistentWatcher)
        }
        if options.brokerDown { broker.stop() }
        switch options.reader {
        case .simulator: try startSimulator(scenario: options.scenario, arguments: options.simulatorArguments)
        case .simulatorAt(let link):
            try startSimulator(scenario: options.scenario, arguments: options.simulatorArguments, linkPath: folder.path + "/" + link)
        case .absent, .device: break
        }
        var brokerURL = broker.url
        if options.throughProxy {
            let proxy = try TCPProxy(targetPort: broker.port)
            self.proxy = proxy
            brokerURL = "mqtt://127.0.0.1:\(proxy.port)"
        }
        if !options.nodesBefore.isEmpty { brokerURL = "[" + (options.nodesBefore + [brokerURL]).joined(separator: ", ") + "]" }
        var mqttLines = options.mqtt
        if let password = options.password { mqttLines.append("password_file: " + (try folder.write("password", password + "\n"))) }
        let mqtt = mqttLines.map { "\n  \($0)" }.joined()
        let homeAssistant = options.homeAssistant ? "" : "homeassistant: {enabled: false}\n"
        config = try folder.writeAgentConfiguration(
            device: device, brokerURL: brokerURL + mqtt, intervalMilliseconds: options.intervalMilliseconds,
            modulations: options.modulations, presence: options.presence, extra: homeAssistant + options.extra)
        if options.startsAgent { try startAgent() }
    }

    /// Starts (another) `nfcbridge run --config <config>`: the first, or the next run after the
    /// last one stopped or was killed. `environment` is added to the agent's (`NOTIFY_SOCKET`);
    /// `launcher` runs it under another program (`strace` and its arguments).
    @discardableResult
    func startAgent(environment: [String: String] = [:], launcher: [String] = []) throws -> ChildProcess {
        let command = [Binaries.path("nfcbridge"), "run", "--config", config]
        let line = launcher + command
        let agent = try ChildProcess(
            line[0], Array(line.dropFirst()), environment: environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 })
        agents.append(agent)
        return agent
    }

    /// Kills the agent without a word (SIGKILL) and returns its exit status once it is gone.
    @discardableResult
    func killAgent() -> Int32? {
        agent.send(SIGKILL)
        return agent.waitForExit()
    }

    /// Starts another simulator (a reader plugged in: at `linkPath`, or its own link), stopped with the run.
    @discardableResult
    func startSimulator(scenario: String?, arguments: [String] = [], linkPath: String? = nil) throws -> SimulatorProcess {
        let simulator = try SimulatorProcess(scenario: scenario, arguments: arguments, linkPath: linkPath)
        simulators.append(simulator)
        return simulator
    }

    /// Connects another watcher to the broker (``Watcher/connect(_:clientID:filters:persistent:protocolVersion:tls:)``),
    /// disconnected with the run.
    @discardableResult
    func connectWatcher(
        clientID: String = "watcher", filters: [String] = ["\(e2eRoot)/#"], persistent: Bool = false,
        protocolVersion: MQTTProtocolVersion? = nil, tls: MQTTTLSConfiguration? = nil
    ) async throws -> Watcher {
        let watcher = try await Watcher.connect(
            broker.url, clientID: clientID, filters: filters, persistent: persistent, protocolVersion: protocolVersion, tls: tls)
        watchers.append(watcher)
        return watcher
    }

    /// Runs `action` first when the run stops (an agent the test runs in its own process, say).
    func atStop(_ action: @escaping @Sendable () async -> Void) { stopActions.append(action) }

    /// Stops everything the run started: what ``atStop(_:)`` asked for, every agent still running,
    /// the watchers, the proxy, the simulators (let go on first, when a test stopped one with
    /// SIGSTOP), the broker (the same, when paused), and removes the folder.
    fileprivate func stop() async {
        for action in stopActions { await action() }
        for agent in agents { agent.terminate() }
        for watcher in watchers { await watcher.disconnect() }
        proxy?.close()
        for simulator in simulators {
            simulator.process.send(SIGCONT)
            simulator.stop()
        }
        broker?.stop()
        folder = nil
    }
}

/// Runs `body` with an ``AgentRun`` set up as `options` say, and stops all of it afterwards, also
/// when `body` or the set-up throws.
func withAgentRun<Result>(
    _ options: AgentRun.Options = .init(), isolation: isolated (any Actor)? = #isolation, _ body: (AgentRun) async throws -> Result
) async throws -> Result {
    let run = AgentRun(options)
    do {
        try await run.start()
        let result = try await body(run)
        await run.stop()
        return result
    } catch {
        await run.stop()
        throw error
    }
}
