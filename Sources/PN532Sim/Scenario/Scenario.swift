import Foundation

/// A scenario file (docs/simulator.md): the tags the simulator knows and a timeline of what lies
/// in the field when.
public struct Scenario: Sendable, Equatable {
    /// Tag definitions, in file order.
    public var tags: [TagSpec]
    /// What lies in the field when; nil = the field starts and stays empty.
    public var timeline: ScenarioTimeline?

    /// A scenario from its parts.
    public init(tags: [TagSpec] = [], timeline: ScenarioTimeline? = nil) {
        self.tags = tags
        self.timeline = timeline
    }

    /// Reads and checks a scenario file.
    public static func load(path: String) throws(SimulatorError) -> Scenario {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .scenario(file: name, line: 0, message: "cannot read \(path)")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: name)
    }

    /// Parses and checks scenario YAML; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(SimulatorError) -> Scenario {
        let root = try YAMLReader.parse(text, file: file)
        let reader = ScenarioNodeReader(file: file)
        let fields = try reader.fields(root, allowed: ["tags", "timeline"], what: "the scenario")
        var scenario = Scenario()
        if let tags = fields["tags"] {
            for node in try reader.list(tags, what: "tags") {
                let spec = try TagSpec.read(node, with: reader)
                guard !scenario.tags.contains(where: { $0.id == spec.id }) else {
                    throw reader.error(node, "tag id '\(spec.id)' is defined twice")
                }
                scenario.tags.append(spec)
            }
        }
        if let timeline = fields["timeline"] {
            scenario.timeline = try ScenarioTimeline.read(timeline, knownIDs: Set(scenario.tags.map(\.id)), with: reader)
        }
        return scenario
    }
}

/// What lies in the field when: events at times from the start, optionally repeated.
public struct ScenarioTimeline: Sendable, Equatable {
    /// One moment of the timeline.
    public struct Event: Sendable, Equatable {
        /// Time from the start of the cycle.
        public var at: Duration
        /// Tags taken out first (`all` empties the field).
        public var remove: [String]
        /// `remove: all`: empty the field first.
        public var removeAll: Bool
        /// Tags put in afterwards, all at once.
        public var place: [String]
        /// Where the event is defined (1-based).
        public var line: Int
    }

    /// Events in time order.
    public var events: [Event]
    /// Start over after `period`.
    public var loops: Bool
    /// Length of one cycle: `period:`, or the last event's time + 1 s.
    public var period: Duration

    static func read(_ node: ScenarioNode, knownIDs: Set<String>, with reader: ScenarioNodeReader)
        throws(SimulatorError) -> ScenarioTimeline
    {
        var loops = false
        var period: Duration?
        var eventNodes: [ScenarioNode]
        if case .list = node.value {
            eventNodes = try reader.list(node, what: "timeline")
        } else {
            let fields = try reader.fields(node, allowed: ["loop", "period", "events"], what: "the timeline")
            if let loop = fields["loop"] { loops = try reader.bool(loop, what: "loop") }
            if let value = fields["period"] { period = try reader.duration(value, what: "period") }
            guard let events = fields["events"] else { throw reader.error(node, "the timeline needs 'events'") }
            eventNodes = try reader.list(events, what: "events")
        }
        var events: [Event] = []
        for eventNode in eventNodes {
            let fields = try reader.fields(eventNode, allowed: ["at", "place", "remove"], what: "a timeline event")
            guard let at = fields["at"] else { throw reader.error(eventNode, "a timeline event needs 'at' (seconds)") }
            var event = Event(at: try reader.duration(at, what: "at"), remove: [], removeAll: false, place: [], line: eventNode.line)
            if let remove = fields["remove"] {
                for item in try reader.list(remove, what: "remove") {
                    let id = try reader.string(item, what: "a tag id")
                    if id == "all" { event.removeAll = true; continue }
                    guard knownIDs.contains(id) else { throw reader.error(item, "remove: no tag with id '\(id)' is defined") }
                    event.remove.append(id)
                }
            }
            if let place = fields["place"] {
                for item in try reader.list(place, what: "place") {
                    let id = try reader.string(item, what: "a tag id")
                    guard knownIDs.contains(id) else { throw reader.error(item, "place: no tag with id '\(id)' is defined") }
                    event.place.append(id)
                }
            }
            guard event.removeAll || !event.remove.isEmpty || !event.place.isEmpty else {
                throw reader.error(eventNode, "a timeline event needs 'place' or 'remove'")
            }
            events.append(event)
        }
        events.sort { $0.at < $1.at }
        let last = events.last?.at ?? .zero
        if let period, period <= last {
            throw reader.error(node, "period must be longer than the last event's time")
        }
        return ScenarioTimeline(events: events, loops: loops, period: period ?? last + .seconds(1))
    }
}
