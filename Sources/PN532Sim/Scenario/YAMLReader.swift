import CYAML

/// Reads a YAML document into a ``ScenarioNode`` tree with libyaml's event parser (one pass over
/// `yaml_parser_parse` events: scalars, sequence and mapping starts and ends). Errors carry the
/// line libyaml reports. Anchors and aliases are refused — scenario files do not need them.
enum YAMLReader {
    /// Parses `text`; `file` names the source in error messages. An empty document is an empty map.
    static func parse(_ text: String, file: String) throws(SimulatorError) -> ScenarioNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw .scenario(file: file, line: 0, message: "libyaml could not start")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(SimulatorError) -> ScenarioNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = Builder(file: file)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "syntax error"
                    throw .scenario(file: file, line: Int(parser.problem_mark.line) + 1, message: problem)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.handle(event)
            }
            return builder.root ?? ScenarioNode(.map([]), line: 1)
        }
    }

    /// Turns the event stream into nodes with a stack of open collections.
    private struct Builder {
        enum Open {
            case list(line: Int, items: [ScenarioNode])
            case map(line: Int, entries: [(key: String, value: ScenarioNode)], pendingKey: ScenarioNode?)
        }

        let file: String
        var stack: [Open] = []
        var root: ScenarioNode?

        init(file: String) { self.file = file }

        mutating func handle(_ event: yaml_event_t) throws(SimulatorError) {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = scalar.value.map { pointer in
                    String(decoding: UnsafeBufferPointer(start: pointer, count: scalar.length), as: UTF8.self)
                } ?? ""
                try add(ScenarioNode(.scalar(text), line: line))
            case YAML_SEQUENCE_START_EVENT:
                stack.append(.list(line: line, items: []))
            case YAML_MAPPING_START_EVENT:
                stack.append(.map(line: line, entries: [], pendingKey: nil))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let open = stack.popLast() else { return }
                switch open {
                case let .list(line, items): try add(ScenarioNode(.list(items), line: line))
                case let .map(line, entries, _): try add(ScenarioNode(.map(entries), line: line))
                }
            case YAML_ALIAS_EVENT:
                throw .scenario(file: file, line: line, message: "anchors and aliases (*name) are not supported")
            default:
                break  // stream/document start and end carry nothing
            }
        }

        private mutating func add(_ node: ScenarioNode) throws(SimulatorError) {
            guard let top = stack.popLast() else {
                root = node
                return
            }
            switch top {
            case let .list(line, items):
                stack.append(.list(line: line, items: items + [node]))
            case let .map(line, entries, pendingKey?):
                guard case let .scalar(key) = pendingKey.value else {
                    throw .scenario(file: file, line: pendingKey.line, message: "mapping keys must be plain values")
                }
                if entries.contains(where: { $0.key == key }) {
                    throw .scenario(file: file, line: pendingKey.line, message: "duplicate key '\(key)'")
                }
                stack.append(.map(line: line, entries: entries + [(key, node)], pendingKey: nil))
            case let .map(line, entries, nil):
                stack.append(.map(line: line, entries: entries, pendingKey: node))
            }
        }
    }
}
