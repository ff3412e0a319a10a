import YAMLDocument

/// Reads a scenario file's YAML into a ``ScenarioNode`` tree through the shared libyaml reader
/// (``YAMLParser`` in the YAMLDocument target, which the agent's configuration uses too), so
/// errors carry the line libyaml reports. Anchors and aliases are refused.
enum YAMLReader {
    /// Parses `text`; `file` names the source in error messages. An empty document is an empty map.
    static func parse(_ text: String, file: String) throws(SimulatorError) -> ScenarioNode {
        do {
            return node(from: try YAMLParser.parse(text))
        } catch {
            throw .scenario(file: file, line: error.line, message: error.message)
        }
    }

    /// The same tree in the simulator's format-neutral node (shared with JSON control requests).
    private static func node(from yaml: YAMLNode) -> ScenarioNode {
        switch yaml {
        case let .scalar(text, line, _):
            return ScenarioNode(.scalar(text), line: line)
        case let .sequence(items, line):
            return ScenarioNode(.list(items.map(node(from:))), line: line)
        case let .mapping(entries, line):
            return ScenarioNode(.map(entries.map { (key: $0.key, value: node(from: $0.value)) }), line: line)
        }
    }
}
