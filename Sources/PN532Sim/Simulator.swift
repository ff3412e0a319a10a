/// What `nfcbridge-sim` runs: an emulated PN532 on a pty, the tags of a scenario, the scenario's
/// timeline and the control socket, started and stopped together.
public final class Simulator: Sendable {
    /// How to run it.
    public struct Configuration: Sendable {
        /// Symlink to the pty (no ':').
        public var linkPath: String
        /// Unix socket for the control channel, or nil for none.
        public var controlPath: String?
        /// Tags and timeline.
        public var scenario: Scenario
        /// Serial-line and chip timing.
        public var timing: PN532Timing
        /// Receives trace lines (commands, sessions) and timeline events; nil = quiet.
        public var log: (@Sendable (String) -> Void)?
        /// Bytes dropped on the pty (``LinkLoss``), nil for a clean line.
        public var linkLoss: LinkLoss?
        /// False: a chip without InAutoPoll (`--without-autopoll`), to test a host's fallback.
        public var answersAutoPoll: Bool

        /// A configuration; only the link path is required.
        public init(linkPath: String, controlPath: String? = nil, scenario: Scenario = Scenario(),
                    timing: PN532Timing = PN532Timing(), log: (@Sendable (String) -> Void)? = nil,
                    linkLoss: LinkLoss? = nil, answersAutoPoll: Bool = true) {
            self.linkLoss = linkLoss
            self.answersAutoPoll = answersAutoPoll
            self.linkPath = linkPath
            self.controlPath = controlPath
            self.scenario = scenario
            self.timing = timing
            self.log = log
        }
    }

    /// The tags in the field.
    public let field: RFField
    /// The tags the simulator knows.
    public let catalog: TagCatalog
    /// The PN532 on the pty.
    public let emulator: PN532Emulator
    private let controlServer: ControlSocketServer?
    private let player: TimelinePlayer?

    /// Builds the scenario's tags, opens the pty and binds the control socket. Nothing runs until
    /// ``start()``.
    public init(configuration: Configuration) throws(SimulatorError) {
        let field = RFField(), catalog = TagCatalog()
        for spec in configuration.scenario.tags { try catalog.define(spec) }
        let monitor = PN532Monitor(trace: configuration.log)
        let emulator = try PN532Emulator(linkPath: configuration.linkPath, field: field, timing: configuration.timing,
                                         monitor: monitor, linkLoss: configuration.linkLoss,
                                         answersAutoPoll: configuration.answersAutoPoll)
        do {
            controlServer = try configuration.controlPath.map { path throws(SimulatorError) in
                try ControlSocketServer(path: path, control: SimulatorControl(field: field, catalog: catalog, monitor: monitor))
            }
        } catch {
            emulator.stop()
            throw error
        }
        player = configuration.scenario.timeline.map { timeline in
            TimelinePlayer(timeline: timeline, field: field, catalog: catalog, log: configuration.log ?? { _ in })
        }
        self.field = field
        self.catalog = catalog
        self.emulator = emulator
    }

    /// The control socket path, when there is one.
    public var controlPath: String? { controlServer?.path }

    /// Starts serving the pty and the control socket, then the timeline.
    public func start() {
        emulator.start()
        controlServer?.start()
        player?.start()
    }

    /// Stops everything and removes the link and the socket file.
    public func stop() {
        player?.stop()
        controlServer?.stop()
        emulator.stop()
    }
}
