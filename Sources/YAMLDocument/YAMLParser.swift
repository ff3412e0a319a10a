import CYAML

/// A YAML syntax problem, with the line it was found on (1-based).
public struct YAMLSyntaxError: Error, Sendable, Equatable {
    /// Line of the problem (1-based).
    public var line: Int
    /// What is wrong.
    public var message: String
}

/// Reads one YAML document into a ``YAMLNode`` tree with libyaml's event parser (`yaml_parser_parse`),
/// which keeps the line of every node — the reason we do not use the document loader.
///
/// Anchors are accepted and ignored; aliases and multi-document streams are refused because a
/// configuration file has no use for them and silently mis-reading one is worse than refusing it.
public enum YAMLParser {
    /// The deepest nesting of mappings and sequences (block or flow) read; a deeper document is
    /// refused rather than recursed into until the stack runs out. A configuration needs a few.
    public static let maximumNestingDepth = 256

    /// Parses `text`. An empty document parses as an empty mapping.
    public static func parse(_ text: String) throws(YAMLSyntaxError) -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLSyntaxError(line: 1, message: "cannot initialise the YAML parser")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLSyntaxError) -> YAMLNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var reader = EventReader(parser: &parser)
            return try reader.readStream()
        }
    }
}

/// One libyaml event, copied out of the C structure.
private struct Event {
    enum Kind { case streamStart, streamEnd, documentStart, documentEnd, alias, scalar, sequenceStart, sequenceEnd,
        mappingStart, mappingEnd, none }
    var kind: Kind
    var line: Int
    var text = ""
    var plain = false
}

/// Pulls events from a libyaml parser and builds nodes from them.
private struct EventReader {
    var parser: UnsafeMutablePointer<yaml_parser_t>

    init(parser: UnsafeMutablePointer<yaml_parser_t>) {
        self.parser = parser
    }

    mutating func next() throws(YAMLSyntaxError) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else {
            let problem = parser.pointee.problem.map { String(cString: $0) } ?? "syntax error"
            let context = parser.pointee.context.map { String(cString: $0) }
            let line = Int(parser.pointee.problem_mark.line) + 1
            throw YAMLSyntaxError(line: line, message: context.map { "\(problem) \($0)" } ?? problem)
        }
        defer { yaml_event_delete(&event) }
        let line = Int(event.start_mark.line) + 1
        switch event.type {
        case YAML_STREAM_START_EVENT: return Event(kind: .streamStart, line: line)
        case YAML_STREAM_END_EVENT: return Event(kind: .streamEnd, line: line)
        case YAML_DOCUMENT_START_EVENT: return Event(kind: .documentStart, line: line)
        case YAML_DOCUMENT_END_EVENT: return Event(kind: .documentEnd, line: line)
        case YAML_ALIAS_EVENT: return Event(kind: .alias, line: line)
        case YAML_SEQUENCE_START_EVENT: return Event(kind: .sequenceStart, line: line)
        case YAML_SEQUENCE_END_EVENT: return Event(kind: .sequenceEnd, line: line)
        case YAML_MAPPING_START_EVENT: return Event(kind: .mappingStart, line: line)
        case YAML_MAPPING_END_EVENT: return Event(kind: .mappingEnd, line: line)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text: String
            if let value = scalar.value {
                text = String(decoding: UnsafeBufferPointer(start: value, count: Int(scalar.length)), as: UTF8.self)
            } else {
                text = ""
            }
            return Event(kind: .scalar, line: line, text: text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE)
        default: return Event(kind: .none, line: line)
        }
    }

    mutating func readStream() throws(YAMLSyntaxError) -> YAMLNode {
        var event = try next()
        guard event.kind == .streamStart else { throw YAMLSyntaxError(line: event.line, message: "not a YAML stream") }
        event = try next()
        if event.kind == .streamEnd { return .mapping([], line: 1) }
        guard event.kind == .documentStart else {
            throw YAMLSyntaxError(line: event.line, message: "expected a YAML document")
        }
        let root = try readNode(try next(), depth: 0)
        let end = try next()
        guard end.kind == .documentEnd else { throw YAMLSyntaxError(line: end.line, message: "expected the end of the document") }
        let after = try next()
        guard after.kind == .streamEnd else {
            throw YAMLSyntaxError(line: after.line, message: "only one YAML document is allowed (found a second '---')")
        }
        return root
    }

    /// Reads the node `event` starts; `depth` is the number of collections it is inside.
    mutating func readNode(_ event: Event, depth: Int) throws(YAMLSyntaxError) -> YAMLNode {
        if event.kind == .sequenceStart || event.kind == .mappingStart, depth >= YAMLParser.maximumNestingDepth {
            throw YAMLSyntaxError(
                line: event.line,
                message:
                    "nesting deeper than \(YAMLParser.maximumNestingDepth) levels at line \(event.line); a configuration needs a few")
        }
        switch event.kind {
        case .scalar:
            return .scalar(event.text, line: event.line, plain: event.plain)
        case .alias:
            throw YAMLSyntaxError(line: event.line, message: "YAML aliases (*name) are not supported in this file")
        case .sequenceStart:
            var items: [YAMLNode] = []
            while true {
                let item = try next()
                if item.kind == .sequenceEnd { break }
                items.append(try readNode(item, depth: depth + 1))
            }
            return .sequence(items, line: event.line)
        case .mappingStart:
            var entries: [YAMLEntry] = []
            var keyLines: [String: Int] = [:]
            while true {
                let keyEvent = try next()
                if keyEvent.kind == .mappingEnd { break }
                guard keyEvent.kind == .scalar else {
                    throw YAMLSyntaxError(line: keyEvent.line, message: "mapping keys must be plain names")
                }
                if let firstLine = keyLines.updateValue(keyEvent.line, forKey: keyEvent.text) {
                    throw YAMLSyntaxError(
                        line: keyEvent.line, message: "duplicate key '\(keyEvent.text)' (first on line \(firstLine))")
                }
                let value = try readNode(try next(), depth: depth + 1)
                entries.append(YAMLEntry(key: keyEvent.text, line: keyEvent.line, value: value))
            }
            return .mapping(entries, line: event.line)
        default:
            throw YAMLSyntaxError(line: event.line, message: "unexpected YAML structure")
        }
    }
}
