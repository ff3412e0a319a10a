import Foundation

/// The control channel's requests (docs/simulator.md, "Control channel"): one JSON object per line
/// in, one JSON object per line out — `{"ok":true,…}` or `{"ok":false,"error":{"code":…,"message":…}}`.
///
/// | cmd | fields | does |
/// | --- | --- | --- |
/// | `list` | — | field contents, known tags, client state, command counts, commands the host aborted |
/// | `define` | `tag` | defines (or redefines) a tag without placing it |
/// | `place` | `id` or `tag` | puts a known tag, or an inline definition, into the field |
/// | `remove` | `id` or `all: true` | takes tags out of the field |
/// | `dump` | `id` | the tag's memory in hex |
/// | `fault` | `fault`: `corrupt_next_write`, `garble_next_answer` [+ `code`], `cut_next_answers` [+ `code`, `count`], `misframe_next_command`, or `remove_after_commands` + `count` + `id` | arms a fault |
/// | `wait_command` | `code` (hex), `count` (default 1), `timeout_ms` (default 5000) | waits until that many such commands arrived in total |
/// | `reader` | — | vpcd mode: the reader model, its LEDs and buzzer (`red`, `green`, `beeps`, `led_commands`, `last_command`) and whether the card is mute |
public struct SimulatorControl: Sendable {
    let field: RFField
    let catalog: TagCatalog
    let monitor: PN532Monitor
    /// The emulated PC/SC reader (vpcd mode), nil for the PN532.
    let reader: (model: PCSCReaderModel, panel: PCSCReaderPanel)?

    /// A handler acting on `field`, `catalog` and `monitor` (and the PC/SC `reader` in vpcd mode).
    public init(field: RFField, catalog: TagCatalog, monitor: PN532Monitor,
                reader: (model: PCSCReaderModel, panel: PCSCReaderPanel)? = nil) {
        self.field = field
        self.catalog = catalog
        self.monitor = monitor
        self.reader = reader
    }

    /// Handles one request line and returns the reply line (without the newline).
    public func handle(line: String) -> String {
        do {
            return try reply(to: line).line
        } catch {
            return JSONValue.object([
                "ok": .bool(false),
                "error": .object(["code": .string(error.code), "message": .string(error.message)]),
            ]).line
        }
    }

    private static let commands: [String: Set<String>] = [
        "list": [], "define": ["tag"], "place": ["id", "tag"], "remove": ["id", "all"], "dump": ["id"],
        "fault": ["fault", "count", "id", "code"], "wait_command": ["code", "count", "timeout_ms"],
        "reader": ["wait_led_commands", "timeout_ms"],
    ]

    private func reply(to line: String) throws(SimulatorError) -> JSONValue {
        let request: ScenarioNode
        do {
            request = try JSONDecoder().decode(ScenarioNode.self, from: Data(line.utf8))
        } catch {
            throw .badRequest("not a JSON object: \(line.prefix(80))")
        }
        let reader = ScenarioNodeReader(file: "control request")
        guard case let .map(entries) = request.value, let cmdNode = entries.first(where: { $0.key == "cmd" })?.value,
            case let .scalar(cmd) = cmdNode.value
        else { throw .badRequest("a request is a JSON object with a \"cmd\" field") }
        guard let allowed = Self.commands[cmd] else {
            throw .badRequest("unknown cmd '\(cmd)' (known: \(Self.commands.keys.sorted().joined(separator: ", ")))")
        }
        let fields = try reader.fields(request, allowed: allowed.union(["cmd"]), what: "a '\(cmd)' request")
        switch cmd {
        case "list": return list()
        case "define":
            guard let tag = fields["tag"] else { throw .badRequest("define needs a \"tag\" object") }
            let spec = try TagSpec.read(tag, with: reader)
            guard !field.contains(id: spec.id) else { throw .badRequest("tag '\(spec.id)' is in the field; remove it first") }
            try catalog.define(spec)
            return ok(["id": .string(spec.id)])
        case "place": return try place(fields, reader)
        case "remove":
            if let all = fields["all"], try reader.bool(all, what: "all") {
                let count = field.placedTags.count
                field.removeAll()
                return ok(["removed": .number(count)])
            }
            guard let idNode = fields["id"] else { throw .badRequest("remove needs \"id\" or \"all\": true") }
            let id = try reader.string(idNode, what: "id")
            return ok(["removed": .number(field.remove(id: id) ? 1 : 0)])
        case "dump": return try dump(fields, reader)
        case "fault": return try fault(fields, reader)
        case "reader": return try readerState(fields, reader)
        default: return try waitCommand(fields, reader)
        }
    }

    private func ok(_ fields: [String: JSONValue]) -> JSONValue {
        .object(fields.merging(["ok": .bool(true)]) { $1 })
    }

    private func list() -> JSONValue {
        let present = field.placedTags.map(\.id)
        let tags: [JSONValue] = catalog.ids.compactMap { id in
            guard let spec = catalog.spec(id: id), let tag = catalog.tag(id: id) else { return nil }
            return .object([
                "id": .string(id), "type": .string(spec.kind.rawValue), "uid": .string(tag.target.uid.hexString),
                "present": .bool(present.contains(id)),
            ])
        }
        let snapshot = monitor.snapshot
        let counts = Dictionary(uniqueKeysWithValues: snapshot.commandCounts.map { ($0.key.hexString, JSONValue.number($0.value)) })
        return ok([
            "field": .array(present.map(JSONValue.string)), "tags": .array(tags),
            "client_connected": .bool(snapshot.isClientConnected), "sessions": .number(snapshot.sessions),
            "commands": .object(counts), "aborts": .number(snapshot.aborts),
        ])
    }

    private func place(_ fields: [String: ScenarioNode], _ reader: ScenarioNodeReader) throws(SimulatorError) -> JSONValue {
        let id: String
        if let tagNode = fields["tag"] {
            let spec = try TagSpec.read(tagNode, with: reader)
            guard !field.contains(id: spec.id) else { throw .badRequest("tag '\(spec.id)' is already in the field") }
            try catalog.define(spec)
            id = spec.id
        } else if let idNode = fields["id"] {
            id = try reader.string(idNode, what: "id")
        } else {
            throw .badRequest("place needs \"id\" or a \"tag\" object")
        }
        guard let tag = catalog.tag(id: id) else { throw .unknownTag(id) }
        field.place(tag, id: id)
        return ok(["id": .string(id), "uid": .string(tag.target.uid.hexString)])
    }

    private func dump(_ fields: [String: ScenarioNode], _ reader: ScenarioNodeReader) throws(SimulatorError) -> JSONValue {
        guard let idNode = fields["id"] else { throw .badRequest("dump needs \"id\"") }
        let id = try reader.string(idNode, what: "id")
        guard let tag = catalog.tag(id: id), let spec = catalog.spec(id: id) else { throw .unknownTag(id) }
        guard let dump = TagMemoryDump.make(tag) else { throw .badRequest("tag '\(id)' has no memory to dump") }
        var reply: [String: JSONValue] = [
            "id": .string(id), "type": .string(spec.kind.rawValue), "uid": .string(tag.target.uid.hexString),
            "memory": .string(dump.memory.hexString), "unit": .number(dump.unit),
        ]
        if let numbers = dump.blockNumbers { reply["blocks"] = .array(numbers.map(JSONValue.number)) }
        if let cc = dump.capabilityContainer { reply["cc"] = .string(cc.hexString) }
        if let ndef = dump.ndefMessage { reply["ndef"] = .string(ndef.hexString) }
        if let updates = dump.updates {
            reply["updates"] = .array(updates.map { .array([.number($0.offset), .number($0.count)]) })
        }
        if let apdus = dump.apdus { reply["apdus"] = .array(apdus.map { .string($0.hexString) }) }
        return ok(reply)
    }

    private func readerState(_ fields: [String: ScenarioNode], _ nodes: ScenarioNodeReader) throws(SimulatorError) -> JSONValue {
        guard let emulated = self.reader else { throw .badRequest("reader is for the vpcd mode (--vpcd)") }
        if let countNode = fields["wait_led_commands"] {
            let count = try nodes.integer(countNode, what: "wait_led_commands", range: 1...1_000_000)
            let timeout = try fields["timeout_ms"].map { node throws(SimulatorError) in
                try nodes.integer(node, what: "timeout_ms", range: 0...3_600_000)
            } ?? 5000
            guard emulated.panel.waitForCommands(count, timeout: .milliseconds(timeout)) else {
                throw .timedOut("\(emulated.panel.snapshot.commands) of \(count) LED / buzzer commands after \(timeout) ms")
            }
        }
        let (model, state) = (emulated.model, emulated.panel.snapshot)
        return ok([
            "model": .string(model.rawValue), "red": .bool(state.red), "green": .bool(state.green),
            "beeps": .number(state.beeps), "led_commands": .number(state.commands),
            "last_command": .string(state.lastCommand), "mute": .bool(state.isMute),
        ])
    }

    private func fault(_ fields: [String: ScenarioNode], _ reader: ScenarioNodeReader) throws(SimulatorError) -> JSONValue {
        guard let faultNode = fields["fault"] else { throw .badRequest("fault needs \"fault\"") }
        // The command whose answer a line fault waits for (one byte, hex), or nil: the next answer.
        let code = try fields["code"].map { node throws(SimulatorError) in try reader.hex(node, what: "code", counts: [1])[0] }
        switch try reader.string(faultNode, what: "fault") {
        case "corrupt_next_write":
            field.corruptNextWrite()
            return ok(["fault": .string("corrupt_next_write")])
        case "garble_next_answer":
            field.garbleNextAnswer(to: code)
            return ok(["fault": .string("garble_next_answer")])
        case "cut_next_answers":
            let count = try fields["count"].map { node throws(SimulatorError) in try reader.integer(node, what: "count", range: 1...1000) } ?? 1
            field.cutNextAnswers(to: code, count: count)
            return ok(["fault": .string("cut_next_answers"), "count": .number(count)])
        case "misframe_next_command":
            field.misframeNextCommand()
            return ok(["fault": .string("misframe_next_command")])
        case "remove_after_commands":
            guard let countNode = fields["count"] else { throw .badRequest("remove_after_commands needs \"count\"") }
            let count = try reader.integer(countNode, what: "count", range: 0...1_000_000)
            let id: String
            if let idNode = fields["id"] {
                id = try reader.string(idNode, what: "id")
            } else if let only = field.placedTags.first, field.placedTags.count == 1 {
                id = only.id
            } else {
                throw .badRequest("remove_after_commands needs \"id\" unless exactly one tag is in the field")
            }
            guard field.contains(id: id) else { throw .badRequest("tag '\(id)' is not in the field") }
            field.removeAfterCommands(count, id: id)
            return ok(["fault": .string("remove_after_commands"), "id": .string(id), "count": .number(count)])
        case "never_answer":
            guard let emulated = self.reader else { throw .badRequest("never_answer is for the vpcd mode (--vpcd)") }
            emulated.panel.setMute(true)
            return ok(["fault": .string("never_answer")])
        case let other:
            throw .badRequest("unknown fault '\(other)' (known: corrupt_next_write, cut_next_answers, garble_next_answer, misframe_next_command, never_answer, remove_after_commands)")
        }
    }

    private func waitCommand(_ fields: [String: ScenarioNode], _ reader: ScenarioNodeReader) throws(SimulatorError) -> JSONValue {
        guard let codeNode = fields["code"] else { throw .badRequest("wait_command needs \"code\" (hex, e.g. \"60\")") }
        let code = try reader.hex(codeNode, what: "code", counts: [1])[0]
        let count = try fields["count"].map { node throws(SimulatorError) in try reader.integer(node, what: "count", range: 1...1_000_000) } ?? 1
        let timeout = try fields["timeout_ms"].map { node throws(SimulatorError) in
            try reader.integer(node, what: "timeout_ms", range: 0...3_600_000)
        } ?? 5000
        guard monitor.waitForCommand(code, count: count, timeout: .milliseconds(timeout)) else {
            throw .timedOut("\(monitor.commandCount(code)) of \(count) commands \(code.hexString) after \(timeout) ms")
        }
        return ok(["count": .number(monitor.commandCount(code))])
    }
}
