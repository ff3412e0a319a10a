/// What `nfcbridge-sim --vpcd` runs: the tags of a scenario presented as the card of vsmartcard's
/// virtual PC/SC reader (``VPCDCardClient``), the scenario's timeline and the control socket,
/// started and stopped together — ``Simulator``'s counterpart for PC/SC.
public final class VPCDSimulator: Sendable {
    /// How to run it.
    public struct Configuration: Sendable {
        /// Where vpcd listens: an IPv4 address (or `localhost`) and its port.
        public var host: String
        public var port: Int
        /// Unix socket for the control channel, or nil for none.
        public var controlPath: String?
        /// Tags and timeline.
        public var scenario: Scenario
        /// Reader-specific answers (``PCSCReaderEmulation/Profile``).
        public var profile: PCSCReaderEmulation.Profile
        /// Receives trace lines (connections, APDUs) and timeline events; nil = quiet.
        public var log: (@Sendable (String) -> Void)?

        /// A configuration; host and port are required.
        public init(host: String, port: Int, controlPath: String? = nil, scenario: Scenario = Scenario(),
                    profile: PCSCReaderEmulation.Profile = .init(), log: (@Sendable (String) -> Void)? = nil) {
            self.host = host
            self.port = port
            self.controlPath = controlPath
            self.scenario = scenario
            self.profile = profile
            self.log = log
        }
    }

    /// The tags in the field.
    public let field: RFField
    /// The tags the simulator knows.
    public let catalog: TagCatalog
    /// The connection to vpcd.
    public let client: VPCDCardClient
    /// The emulated reader's LEDs, buzzer and faults.
    public var panel: PCSCReaderPanel { client.panel }
    private let controlServer: ControlSocketServer?
    private let player: TimelinePlayer?

    /// Builds the scenario's tags and binds the control socket. Nothing runs until ``start()``.
    public init(configuration: Configuration) throws(SimulatorError) {
        let field = RFField(), catalog = TagCatalog(), monitor = PN532Monitor()
        for spec in configuration.scenario.tags { try catalog.define(spec) }
        let log = configuration.log ?? { _ in }
        let panel = PCSCReaderPanel()
        let client = try VPCDCardClient(host: configuration.host, port: configuration.port, field: field, monitor: monitor,
                                        profile: configuration.profile, panel: panel, log: log)
        let model = configuration.profile.model
        controlServer = try configuration.controlPath.map { path throws(SimulatorError) in
            try ControlSocketServer(
                path: path, control: SimulatorControl(field: field, catalog: catalog, monitor: monitor, reader: (model, panel)))
        }
        player = configuration.scenario.timeline.map { timeline in
            TimelinePlayer(timeline: timeline, field: field, catalog: catalog, log: log)
        }
        self.field = field
        self.catalog = catalog
        self.client = client
    }

    /// The control socket path, when there is one.
    public var controlPath: String? { controlServer?.path }

    /// Starts the control socket, the timeline (its time-0 events are in the field when this returns)
    /// and the connection to vpcd.
    public func start() {
        controlServer?.start()
        player?.start()
        client.start()
    }

    /// Stops everything and removes the socket file.
    public func stop() {
        player?.stop()
        client.stop()
        controlServer?.stop()
    }
}
