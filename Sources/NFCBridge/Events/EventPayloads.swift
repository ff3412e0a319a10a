import FoundationEssentials
import Glibc
import NFCCore

/// An event as published on `<base>/<id>/event/<kind>`: its body's fields plus the envelope
/// (docs/mqtt.md, "Events"): `event_id`, `seq`, `ts`, `reader`, `type`, `buffered`. The envelope's
/// keys win over a body field of the same name.
package struct EventEnvelope<Body: Encodable & Sendable>: Encodable, Sendable {
    /// The event's own fields.
    package var body: Body
    /// The ULID (``EventID``).
    package var eventID: String
    /// The per-agent sequence number.
    package var seq: Int64
    /// When the event happened.
    package var date: Date
    /// The agent id.
    package var reader: String
    /// The kind (also the last topic level).
    package var type: EventKind
    /// True when replayed from the spool.
    package var buffered: Bool
    /// False when the copy went out before the event reached the disk (during a disk outage: a
    /// restart then would lose it); only `durable: false` is written.
    package var durable = true

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id", seq, ts, reader, type, buffered, durable
    }

    package func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(eventID, forKey: .eventID)
        try container.encode(seq, forKey: .seq)
        try container.encode(Timestamp.string(date), forKey: .ts)
        try container.encode(reader, forKey: .reader)
        try container.encode(type, forKey: .type)
        try container.encode(buffered, forKey: .buffered)
        if !durable { try container.encode(false, forKey: .durable) }
    }
}

/// `{"code":…,"message":…}`: an error as payloads carry it.
package struct ErrorPayload: Codable, Sendable, Equatable {
    /// The stable code.
    package var code: String
    /// For people.
    package var message: String

    /// Creates the payload.
    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// The body of `event/error`: `error`, `op`, and `uid` when a tag was concerned.
package struct ErrorEvent: Encodable, Sendable {
    /// What failed.
    package var error: NFCError
    /// The operation: `open`, `poll`, `scan`, `dump`.
    package var operation: String
    /// The tag, when one was concerned.
    package var uid: [UInt8]?

    enum CodingKeys: String, CodingKey { case error, operation = "op", uid }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ErrorPayload(code: error.code, message: error.message), forKey: .error)
        try container.encode(operation, forKey: .operation)
        try container.encodeIfPresent(uid?.hexString, forKey: .uid)
    }
}

/// The body of `event/removed`: `uid`, `cardType`, `random_uid`, `present_ms` (+ `after_restart`).
package struct RemovedEvent: Encodable, Sendable, Equatable {
    /// The tag that left.
    package var uid: [UInt8]
    /// Its card type as its arrival was typed (nil when the agent never scanned it: not expected,
    /// a removal always follows an arrival or a presence record).
    package var cardType: String?
    /// How long it was in the field.
    package var presentMilliseconds: Int64
    /// It was in the field when the previous run ended and was gone at this run's first poll
    /// (`after_restart: true`, only then): it left while the agent was down, so `present_ms`
    /// reaches up to that poll.
    package var afterRestart = false

    /// Creates the body.
    package init(uid: [UInt8], cardType: String?, presentMilliseconds: Int64, afterRestart: Bool = false) {
        (self.uid, self.cardType, self.presentMilliseconds, self.afterRestart) = (uid, cardType, presentMilliseconds, afterRestart)
    }

    enum CodingKeys: String, CodingKey {
        case uid, cardType, randomUID = "random_uid", presentMilliseconds = "present_ms", afterRestart = "after_restart"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid.hexString, forKey: .uid)
        try container.encode(cardType, forKey: .cardType)
        try container.encode(Target.isRandomUID(uid), forKey: .randomUID)
        try container.encode(presentMilliseconds, forKey: .presentMilliseconds)
        if afterRestart { try container.encode(true, forKey: .afterRestart) }
    }
}

/// The body of `event/scanned`: the scan object (NFCCore's scan report) plus `uid`, `cardType`,
/// `random_uid`, `tag_id`, `initial` and, when the access checks ran, `trust`.
package struct ScannedEvent: Encodable, Sendable {
    /// The scan.
    package var scan: TagScan

    enum CodingKeys: String, CodingKey {
        case uid, cardType, randomUID = "random_uid", tagID = "tag_id", initial, trust
    }

    package func encode(to encoder: any Encoder) throws {
        try scan.report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scan.uid.hexString, forKey: .uid)
        try container.encode(scan.cardType, forKey: .cardType)
        try container.encode(scan.hasRandomUID, forKey: .randomUID)
        try container.encode(scan.homeAssistantTagID, forKey: .tagID)
        try container.encode(scan.initial, forKey: .initial)
        try container.encodeIfPresent(scan.trust, forKey: .trust)
    }
}

/// The body of `event/dump`: `uid`, `cardType`, and `dump` (the dump's JSON export, encoded from
/// the ``TagDump`` here, with the event).
package struct DumpEvent: Encodable, Sendable {
    /// The tag.
    package var uid: [UInt8]
    /// Its card type.
    package var cardType: String
    /// The dump; `dump` is its JSON export (``TagDump/jsonExportDocument``).
    package var dump: TagDump

    enum CodingKeys: String, CodingKey { case uid, cardType, dump }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid.hexString, forKey: .uid)
        try container.encode(cardType, forKey: .cardType)
        try dump.jsonExportDocument.encode(to: container.superEncoder(forKey: .dump))
    }
}

/// The body of the `event/error` that says the spool dropped events (`op` `spool`): code
/// `spool_full` (beyond `spool.max_events` / `spool.max_bytes`, oldest first) or `spool_expired`
/// (older than `spool.max_age_s`), how many, and the range of their `seq`.
package struct SpoolDropEvent: Encodable, Sendable {
    /// What was dropped.
    package var drop: EventSpool.Drop

    enum CodingKeys: String, CodingKey { case error, operation = "op", dropped, firstSeq = "first_seq", lastSeq = "last_seq" }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let expired = drop.reason == "expired"
        let what = expired ? "older than spool.max_age_s" : "beyond spool.max_events / spool.max_bytes (the oldest)"
        try container.encode(
            ErrorPayload(
                code: expired ? "spool_expired" : "spool_full",
                message: "\(drop.count) buffered event(s) \(what) were dropped before the broker took them"),
            forKey: .error)
        try container.encode("spool", forKey: .operation)
        try container.encode(drop.count, forKey: .dropped)
        try container.encode(drop.firstSeq, forKey: .firstSeq)
        try container.encode(drop.lastSeq, forKey: .lastSeq)
    }
}

/// The `event/error` of a state filesystem that stopped taking the spool's writes (full,
/// read-only, failing): `spool_write_failed`, once per outage. Events made meanwhile are kept in
/// memory and published all the same (`durable: false`); a restart before the disk is back loses
/// those not yet delivered.
package struct SpoolWriteFailedEvent: Encodable, Sendable {
    /// The failure (path and the system's reason).
    package var failure: StorageError

    enum CodingKeys: String, CodingKey { case error, operation = "op" }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(
            ErrorPayload(
                code: StorageError.Code.spoolWriteFailed.rawValue,
                message: "the spool cannot be written (\(failure.message)): events are kept in memory and still published, but a restart now loses those not yet delivered; free space or fix the state_dir's filesystem"),
            forKey: .error)
        try container.encode("spool", forKey: .operation)
    }
}

/// The `event/error` that replaces an event the broker refused for its size (MQTT 5 Maximum
/// Packet Size, `mqtt.max_packet_size`, or MQTT's own 256 MB): `payload_too_large`, naming the refused event's kind,
/// `seq`, `event_id` and size, so the gap in `seq` is explained and the stream moves on (the
/// refused payload is not kept).
package struct PayloadTooLargeEvent: Encodable, Sendable {
    /// The refused event's `type`, `seq`, `event_id` and payload size in bytes.
    package var kind: EventKind
    package var seq: Int64
    package var eventID: String
    package var size: Int

    enum CodingKeys: String, CodingKey {
        case error, operation = "op", refusedType = "refused_type", refusedSeq = "refused_seq"
        case refusedEventID = "refused_event_id", size
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(
            ErrorPayload(
                code: "payload_too_large",
                message: "the broker refused the \(kind.rawValue) event seq \(seq) of \(size) bytes for its size (it is not kept): raise the broker's max_packet_size (and mqtt.max_packet_size with it), or turn dump.on_scan off for tags this large"),
            forKey: .error)
        try container.encode("publish", forKey: .operation)
        try container.encode(kind, forKey: .refusedType)
        try container.encode(seq, forKey: .refusedSeq)
        try container.encode(eventID, forKey: .refusedEventID)
        try container.encode(size, forKey: .size)
    }
}

/// The `event/error` of another client using the agent's client id (`op` `mqtt`):
/// `duplicate_client_id`, once per episode, with `takeovers` (how often the broker gave the
/// session to the other client so far) and the `client_id`. The agent then waits 5 s, doubling up
/// to 5 min, after each takeover instead of taking the session straight back.
package struct DuplicateClientIDEvent: Encodable, Sendable {
    /// Takeovers so far.
    package var takeovers: Int
    /// The agent's MQTT client id.
    package var clientID: String

    enum CodingKeys: String, CodingKey { case error, operation = "op", takeovers, clientID = "client_id" }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(
            ErrorPayload(
                code: "duplicate_client_id",
                message: "another client connects with this agent's client id \(clientID): the broker gave the session to it \(takeovers) times within seconds of each connect; give every agent its own id (two agents started with one configuration?). Backing off (5 s doubling to 5 min) instead of fighting"),
            forKey: .error)
        try container.encode("mqtt", forKey: .operation)
        try container.encode(takeovers, forKey: .takeovers)
        try container.encode(clientID, forKey: .clientID)
    }
}
