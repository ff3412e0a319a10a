/// Typed access to a ``ScenarioNode`` tree with errors that name the file and line.
struct ScenarioNodeReader {
    /// Source name for messages ("demo.yaml", "control request").
    let file: String

    func error(_ node: ScenarioNode, _ message: String) -> SimulatorError {
        .scenario(file: file, line: node.line, message: message)
    }

    /// The entries of a mapping; keys outside `allowed` are an error (typos must not pass silently).
    func fields(_ node: ScenarioNode, allowed: Set<String>, what: String) throws(SimulatorError) -> [String: ScenarioNode] {
        guard case let .map(entries) = node.value else { throw error(node, "\(what) must be a mapping, not \(node.kindName)") }
        var fields: [String: ScenarioNode] = [:]
        for (key, value) in entries {
            guard allowed.contains(key) else {
                throw error(value, "unknown key '\(key)' in \(what) (expected one of: \(allowed.sorted().joined(separator: ", ")))")
            }
            fields[key] = value
        }
        return fields
    }

    func string(_ node: ScenarioNode, what: String) throws(SimulatorError) -> String {
        guard case let .scalar(text) = node.value else { throw error(node, "\(what) must be a value, not \(node.kindName)") }
        return text
    }

    /// A list; a single value counts as a one-item list (`place: poster`).
    func list(_ node: ScenarioNode, what: String) throws(SimulatorError) -> [ScenarioNode] {
        switch node.value {
        case let .list(items): return items
        case .scalar: return [node]
        case .map: throw error(node, "\(what) must be a list, not a mapping")
        }
    }

    /// Hex bytes (spaces, colons and dashes allowed); `counts` lists the lengths accepted.
    func hex(_ node: ScenarioNode, what: String, counts: Set<Int>? = nil) throws(SimulatorError) -> [UInt8] {
        let text = try string(node, what: what)
        guard let bytes = [UInt8](hex: text) else { throw error(node, "\(what) '\(text)' is not hex") }
        if let counts, !counts.contains(bytes.count) {
            let expected = counts.sorted().map(String.init).joined(separator: " or ")
            throw error(node, "\(what) must have \(expected) bytes, not \(bytes.count)")
        }
        return bytes
    }

    /// A decimal or 0x-prefixed integer in `range`.
    func integer(_ node: ScenarioNode, what: String, range: ClosedRange<Int>) throws(SimulatorError) -> Int {
        let text = try string(node, what: what)
        let value = text.lowercased().hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        guard let value, range.contains(value) else {
            throw error(node, "\(what) must be a number in \(range.lowerBound)…\(range.upperBound), not '\(text)'")
        }
        return value
    }

    func bool(_ node: ScenarioNode, what: String) throws(SimulatorError) -> Bool {
        switch try string(node, what: what).lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(node, "\(what) must be true or false")
        }
    }

    /// The longest time a scenario names (a year): longer ones are refused, not converted (a number
    /// like 1e300 trapped in the Int64 conversion, found by fuzz/harnesses/scenario).
    static let maximumDurationSeconds: Double = 365 * 24 * 3600

    /// A time: seconds as a number (`1.5`), or with a unit (`1.5s`, `250ms`), at most a year.
    func duration(_ node: ScenarioNode, what: String) throws(SimulatorError) -> Duration {
        let text = try string(node, what: what).trimmingSpaces
        let (number, scale): (Substring, Double) =
            text.hasSuffix("ms") ? (text.dropLast(2), 0.001) : text.hasSuffix("s") ? (text.dropLast(), 1) : (Substring(text), 1)
        guard let value = Double(number.trimmingSpaces), value >= 0, value.isFinite else {
            throw error(node, "\(what) must be a time like 2, 1.5s or 250ms, not '\(text)'")
        }
        guard value * scale <= Self.maximumDurationSeconds else {
            throw error(node, "\(what) '\(text)' is longer than a year (\(Int(Self.maximumDurationSeconds)) s)")
        }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
