import FoundationEssentials
import Glibc
import LibNFCReader
import MQTTClient
import NFCBridge
import NFCCore
import PCSCReader
import Synchronization

/// `nfcbridge run`: the agent. Reads the configuration (exit 2 on any problem, before anything
/// connects), then runs until SIGTERM / SIGINT: reader loop, MQTT, spool, Home Assistant discovery,
/// health, systemd notifications. See docs/mqtt.md and config/nfcbridge.example.yaml.
enum RunCommand {
    static let usage = """
        usage: nfcbridge run [--config FILE] [--device CONNSTRING] [--broker URL] [--state-dir DIR]

          --config FILE        configuration (default /etc/nfcbridge/config.yaml when it exists)
          --device CONNSTRING  libnfc connstring or pcsc:<reader name or index>, replaces reader.device
          --broker URL         mqtt://host[:port] or mqtts://host[:port], replaces mqtt.url
          --state-dir DIR      spool and sequence number there, replaces state_dir
          NFCBRIDGE_MQTT_PASSWORD in the environment replaces mqtt.password_file.
          STATE_DIRECTORY (set by systemd's StateDirectory=) is the state directory when neither
          --state-dir nor state_dir is given; the default is /var/lib/nfcbridge.

        """

    /// Runs the agent with the arguments after `run`.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let configPath = arguments.option("config")
        let device = arguments.option("device")
        let broker = arguments.option("broker")
        let stateDirectory = arguments.option("state-dir")
        try arguments.rejectUnknown()
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("run takes no arguments: '\(arguments.positionals[0])'")
        }

        let configuration: AgentConfiguration
        do {
            configuration = try ConfigurationLoader.load(
                path: configPath,
                overrides: ConfigurationOverrides(
                    device: device, broker: broker, stateDirectory: stateDirectory, environment: ProcessInfo.processInfo.environment))
        } catch {
            throw CLIError(code: error.code.rawValue, message: error.message, exitCode: 2)
        }
        // With `reader.backend: pcsc` the device may be a bare PC/SC reader name (spaces and all).
        if let connstring = configuration.reader.device, configuration.reader.backend != .pcsc {
            do {
                _ = try Connstring(connstring)
            } catch {
                let source = device != nil ? "--device" : "\(configPath ?? ConfigurationLoader.defaultPath): reader.device"
                throw CLIError(code: ConfigurationError.Code.invalidConfig.rawValue, message: "\(source): \(error.message)", exitCode: 2)
            }
        }
        let backend = configuration.reader.backend
        if let mismatch = ReaderBackendChoice.mismatch(connstring: configuration.reader.device, backend: backend) {
            let source = device != nil ? "--device" : "\(configPath ?? ConfigurationLoader.defaultPath): reader.device"
            throw CLIError(code: ConfigurationError.Code.invalidConfig.rawValue, message: "\(source): \(mismatch)", exitCode: 2)
        }
        let usesPCSC = ReaderBackendChoice.usesPCSC(connstring: configuration.reader.device, backend: backend)
        // libnfc has no ISO 15693 modulation: a configuration that polls for it on the libnfc backend is
        // refused here, before anything connects, rather than failing every poll (docs/cli.md, "run").
        if !usesPCSC, let problem = LibNFCDevice.unsupportedPolling(of: configuration.reader.modulations) {
            throw CLIError(code: problem.code,
                           message: "\(configPath ?? ConfigurationLoader.defaultPath): reader.polling.modulations: \(problem.message)",
                           exitCode: 2)
        }
        let clock = SystemClock()
        let logger = AgentLogger(level: configuration.log.level, clock: clock)

        let client: MQTTClient
        do {
            // Why a connection attempt failed and when the next one comes, once per change of reason.
            client = try MQTTClient(configuration: configuration.mqttClientConfiguration) { failure in
                logger.warning(failure.description)
            }
        } catch {
            // Unreadable TLS files and the like: a configuration problem, found before connecting.
            throw CLIError(code: error.code, message: error.message, exitCode: 2)
        }
        let publisher = MQTTClientPublisher(client: client)
        let reader = ReaderBackendChoice.device(
            connstring: configuration.reader.device, backend: backend, shareMode: configuration.reader.pcscShareMode,
            autoPoll: true)
        // What the agent runs on is chosen here; the agent keeps the lifecycle.
        let agent: Agent
        do {
            agent = Agent(
                try AgentAssembly(
                    configuration: configuration, publisher: publisher, device: reader,
                    scanner: NFCCoreScanner(familyOptions: configuration.dump.families, access: configuration.access,
                                             warn: { logger.warning($0) }), clock: clock, logger: logger,
                    notifier: SystemdNotifier(environment: ProcessInfo.processInfo.environment)))
        } catch {
            let source = configuration.stateDirectorySource ?? "state_dir (not set: the default; set it or give --state-dir DIR)"
            throw CLIError(code: error.code.rawValue, message: "\(source): \(error.message)", exitCode: 2)
        }

        // SIGTERM and SIGINT stop the agent cleanly (offline published, tag cleared, reader closed);
        // a second signal while it stops ends the process at once.
        let received = Mutex(false)
        try await StopSignals.handling(with: { signalNumber in
            let again = received.withLock { seen in
                defer { seen = true }
                return seen
            }
            if again { exit(130) }
            logger.notice("signal \(signalNumber): stopping")
            agent.stop()
        }) {
            try publisher.start()
            await agent.run()
            await publisher.disconnect()
        }
    }
}
