import FoundationEssentials
import Glibc
import NFCCore

/// A request refused before it was queued, with what could be read of its `id` and `transaction`
/// so the response can still echo them.
package struct CommandRejection: Error, Sendable, Equatable {
    /// The request's `id`, when it had a usable one.
    package var id: RequestID?
    /// The request's `transaction`, when it had a usable one.
    package var transaction: TransactionID?
    /// Why it was refused.
    package var error: CommandError

    /// Creates a rejection.
    package init(id: RequestID? = nil, transaction: TransactionID? = nil, _ error: CommandError) {
        self.id = id
        self.transaction = transaction
        self.error = error
    }
}

/// Turns a request payload into a ``CommandRequest``, strictly: malformed JSON, a payload over the
/// size limit, a missing `id`, unknown fields, wrong types and bad values are `invalid_request`
/// naming the field; an unknown command is `unknown_command`; a `lock` while locking is disabled is
/// `not_permitted`; a request whose `ttl_s` / `expires_at` has passed is `expired`.
///
/// Pure: the time comes in as arguments (`now` for `expires_at`, `monotonic` to turn both into a
/// deadline on the monotonic clock).
package enum CommandParser {
    /// Fields every command except `cancel` takes.
    static let commonFields: Set<String> = ["id", "transaction", "uid", "wait_for_tag_s", "ttl_s", "expires_at"]

    /// The fields each command accepts: a table, so docs/mqtt.md and the parser agree.
    static let fields: [CommandName: Set<String>] = [
        .write: commonFields.union(["records", "ndef_hex", "password"]),
        .format: commonFields.union(["password"]),
        .lock: commonFields.union(["confirm", "password"]),
        .dump: commonFields.union(["format", "partial"]),
        .cancel: ["id", "transaction"],
        .feedback: ["id", "transaction", "light", "beeps"],
        .writeBlocks: commonFields.union(WriteBlocksRequest.fields),
        .job: JobRequest.fields.union(["id", "transaction"]),
    ]

    /// Parses the payload of `<base>/<id>/request/<command>`: reads it once (``RequestPayload``),
    /// unless it is over the size limit, and parses that.
    package static func parse(
        command name: String, payload: [UInt8], policy: CommandPolicy, now: Date, monotonic: Int64
    ) -> Result<CommandRequest, CommandRejection> {
        parse(command: name, RequestPayload(payload, limit: policy.maximumPayloadBytes), policy: policy, now: now, monotonic: monotonic)
    }

    /// Parses a payload read once (``RequestPayload``): the bare request or the verified body of a
    /// signed one.
    package static func parse(
        command name: String, _ payload: RequestPayload, policy: CommandPolicy, now: Date, monotonic: Int64
    ) -> Result<CommandRequest, CommandRejection> {
        guard payload.size <= policy.maximumPayloadBytes, let content = payload.content else {
            return .failure(
                CommandRejection(
                    .invalid("payload", "\(payload.size) bytes is over the limit of \(policy.maximumPayloadBytes) bytes")))
        }
        guard case let .object(object) = content else {
            guard CommandName(rawValue: name) != nil else { return .failure(unknownCommand(name, echo: (nil, nil))) }
            // An empty payload is not JSON.
            return .failure(CommandRejection(.invalid("payload", content == .notJSON ? "not valid JSON" : "must be a JSON object")))
        }
        let echo = Self.echo(object)
        guard let command = CommandName(rawValue: name) else { return .failure(unknownCommand(name, echo: echo)) }
        do throws(CommandError) {
            let request = try parse(command, object, policy: policy, now: now, monotonic: monotonic)
            return .success(request)
        } catch {
            return .failure(CommandRejection(id: echo.id, transaction: echo.transaction, error))
        }
    }

    private static func unknownCommand(_ name: String, echo: (id: RequestID?, transaction: TransactionID?)) -> CommandRejection {
        let known = CommandName.allCases.map(\.rawValue).joined(separator: ", ")
        return CommandRejection(
            id: echo.id, transaction: echo.transaction, CommandError(.unknownCommand, "unknown command '\(name)' (known: \(known))"))
    }

    /// The `id` and `transaction` of a payload when their types are right (for echoing).
    static func echo(_ object: JSONFields) -> (id: RequestID?, transaction: TransactionID?) {
        let id = object.member("id").flatMap { (try? RequestID(member: $0)) ?? nil }
        let transaction = object.member("transaction").flatMap { (try? TransactionID(member: $0)) ?? nil }
        return (id, transaction)
    }

    private static func parse(
        _ command: CommandName, _ object: JSONFields, policy: CommandPolicy, now: Date, monotonic: Int64
    ) throws(CommandError) -> CommandRequest {
        let accepted = fields[command] ?? []
        if let unknown = object.names.first(where: { !accepted.contains($0) }) {
            throw .invalid(unknown, "unknown field for \(command.rawValue) (accepted: \(accepted.sorted().joined(separator: ", ")))")
        }
        guard let rawID = object.member("id") else { throw .invalid("id", "required") }
        guard let id = try RequestID(member: rawID) else { throw .invalid("id", "must not be null") }
        let transaction = try object.member("transaction").flatMap { value throws(CommandError) in try TransactionID(member: value) }
        var request = CommandRequest(
            command: command, id: id, transaction: transaction,
            waitForTagMilliseconds: milliseconds(policy.defaultWaitForTagSeconds), action: .cancel)
        if command == .cancel { return request }
        if command == .job {
            request.action = .job(try JobRequest(object.values(except: ["id", "transaction"])))
            return request
        }
        if command == .feedback {
            request.action = .feedback(try feedbackSignal(object))
            return request
        }

        request.uid = try uid(object, field: "uid")
        let wait = try seconds(object, field: "wait_for_tag_s", allowZero: true, maximum: policy.maximumWaitForTagSeconds)
        request.waitForTagMilliseconds = milliseconds(wait ?? policy.defaultWaitForTagSeconds)
        request.expiresAtMonotonic = try deadline(object, now: now, monotonic: monotonic)

        switch command {
        case .write:
            let password = try password(object)
            switch (object.has("records"), object.has("ndef_hex")) {
            case (false, false): throw .invalid("records", "required (or ndef_hex)")
            case (true, true): throw .invalid("ndef_hex", "give records or ndef_hex, not both")
            case (true, false): request.action = .write(message: try message(records: object), password: password)
            case (false, true): request.action = .write(message: try message(hex: object), password: password)
            }
        case .format:
            request.action = .format(password: try password(object))
        case .lock:
            guard policy.lockEnabled else {
                throw CommandError(.notPermitted, "lock is disabled: set commands.lock.enabled: true in the configuration")
            }
            guard let target = request.uid else { throw .invalid("uid", "required for lock (the UID of the tag to lock)") }
            guard let confirm = try uid(object, field: "confirm") else {
                throw .invalid("confirm", "required for lock: repeat the UID \(target.hexString) to confirm")
            }
            guard confirm == target else {
                throw .invalid("confirm", "must equal uid (\(target.hexString)), got \(confirm.hexString)")
            }
            request.action = .lock(uid: target, password: try password(object))
        case .dump:
            var format = ExportFormat.json
            if object.has("format") {
                guard let text = object.string("format"), let parsed = ExportFormat(rawValue: text) else {
                    throw .invalid("format", "must be one of \(ExportFormat.names(separator: ", "))")
                }
                format = parsed
            }
            var partial = false
            if object.has("partial") {
                guard let flag = object.bool("partial") else { throw .invalid("partial", "must be true or false") }
                guard !flag || format.takesPartial else {
                    throw .invalid("partial", "applies to format \(ExportFormat.partialFormatNames) only (format is \(format.rawValue))")
                }
                partial = flag
            }
            request.action = .dump(format: format, partial: partial)
        case .cancel, .job, .feedback:
            break
        case .writeBlocks:
            request.action = try WriteBlocksRequest.action(object, uid: request.uid)
        }

        if let expiry = request.expiresAtMonotonic, expiry <= monotonic {
            throw CommandError(.expired, "the request expired before it arrived (ttl_s / expires_at): nothing was done")
        }
        return request
    }

    // MARK: - Fields

    /// The UID in the member `field` (nil when absent).
    static func uid(_ object: JSONFields, field: String) throws(CommandError) -> [UInt8]? {
        guard object.has(field) else { return nil }
        guard let text = object.string(field), let bytes = [UInt8](hex: text) else {
            throw .invalid(field, "must be a hex string (e.g. \"04A1B2C3D4E5F6\")")
        }
        guard (4...10).contains(bytes.count) else { throw .invalid(field, "must be 4 to 10 bytes, got \(bytes.count)") }
        return bytes
    }

    /// The seconds in the member `field` (nil when absent).
    static func seconds(_ object: JSONFields, field: String, allowZero: Bool, maximum: Double) throws(CommandError) -> Double? {
        guard object.has(field) else { return nil }
        guard let number = object.number(field) else { throw .invalid(field, "must be a number of seconds") }
        guard number.isFinite, allowZero ? number >= 0 : number > 0 else {
            throw .invalid(field, allowZero ? "must not be negative" : "must be greater than 0")
        }
        guard number <= maximum else { throw .invalid(field, "must be at most \(Int(maximum))") }
        return number
    }

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }

    /// The earlier of `ttl_s` (from now) and `expires_at`, on the monotonic clock.
    static func deadline(_ object: JSONFields, now: Date, monotonic: Int64) throws(CommandError) -> Int64? {
        var deadline: Int64?
        if let ttl = try seconds(object, field: "ttl_s", allowZero: false, maximum: 365 * 86_400) {
            deadline = monotonic + milliseconds(ttl)
        }
        if object.has("expires_at") {
            guard let text = object.string("expires_at"), let date = timestamp(text) else {
                throw .invalid("expires_at", "must be an ISO 8601 UTC time such as \"2026-01-01T12:00:00Z\"")
            }
            let left = milliseconds(date.timeIntervalSince(now))
            let absolute = monotonic + max(left, -1)
            deadline = min(deadline ?? absolute, absolute)
        }
        return deadline
    }

    /// Parses an ISO 8601 internet date-time, with or without fractional seconds.
    static func timestamp(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    static func password(_ object: JSONFields) throws(CommandError) -> [UInt8]? {
        guard object.has("password") else { return nil }
        // PWD_AUTH (NTAG21x, Ultralight EV1, NTAG210/212) takes a 4-byte password (NTAG213/215/216 §10.7).
        guard let text = object.string("password"), let bytes = [UInt8](hex: text), bytes.count == 4 else {
            throw .invalid("password", "must be 4 bytes of hex (the NTAG21x / Ultralight EV1 PWD)")
        }
        return bytes
    }

    /// The NDEF message bytes of the member `records` of `object` (an array of records in the
    /// ``NDEFRecordJSON`` form, or one record object). Errors are `invalid_request` naming the field
    /// (`records[0].uri: …`).
    package static func message(records object: JSONFields) throws(CommandError) -> [UInt8] {
        guard let items = object.elements("records", objectAsList: true) else {
            throw .invalid("records", "must be an array of NDEF records")
        }
        guard items.count > 0 else { throw .invalid("records", "must hold at least one record (format empties a tag)") }
        do {
            // NDEFJSON names the field in its errors: "records[0].uri: …".
            let records = try items.decode(NDEFRecordsValue.self, as: "records").records
            return try NDEFMessage(records: records).bytes
        } catch let error as NFCError {
            throw CommandError(.invalidRequest, error.message)
        } catch {
            // NDEFJSON names every problem as an NFCError; anything else is the value decoder's own.
            throw .invalid("records", "\(error)")
        }
    }

    /// The bytes of an NDEF message given as a hex string in the member `ndef_hex` of `object`; they
    /// must decode as a message.
    package static func message(hex object: JSONFields) throws(CommandError) -> [UInt8] {
        guard let text = object.string("ndef_hex"), let bytes = [UInt8](hex: text) else {
            throw .invalid("ndef_hex", "must be a hex string")
        }
        guard !bytes.isEmpty else { throw .invalid("ndef_hex", "must not be empty (format empties a tag)") }
        do {
            _ = try NDEFMessage(bytes: bytes)
        } catch {
            throw .invalid("ndef_hex", "not a valid NDEF message: \(error.message)")
        }
        return bytes
    }
}

/// The records of a request's `records` value, decoded by NFCCore's NDEF JSON from the parsed value.
private struct NDEFRecordsValue: Decodable {
    var records: [NDEFRecord]

    init(from decoder: any Decoder) throws {
        records = try NDEFJSON.decodeRecords(from: decoder)
    }
}
