/// The 3-bit Type Name Format of an NDEF record header: how to read the record's TYPE field.
/// Source: NFC Forum NDEF 1.0, §3.2.6 (TNF) and §3.3.
public enum TypeNameFormat: UInt8, Sendable, Hashable, CaseIterable, Codable {
    /// No type, no id, no payload (TYPE_LENGTH, ID_LENGTH and PAYLOAD_LENGTH must be 0).
    case empty = 0
    /// An NFC Forum well-known type (RTD): `T` text, `U` URI, `Sp` smart poster, …
    case wellKnown = 1
    /// A MIME media type (RFC 2046), such as `text/plain`.
    case mimeMedia = 2
    /// An absolute URI (RFC 3986) held in the TYPE field.
    case absoluteURI = 3
    /// An NFC Forum external type `domain:type` (shown as `urn:nfc:ext:domain:type`).
    case external = 4
    /// The payload type is unknown (TYPE_LENGTH must be 0).
    case unknown = 5
    /// A middle or last chunk of a chunked record (TYPE_LENGTH must be 0).
    case unchanged = 6
    /// Reserved by the NFC Forum.
    case reserved = 7
}

/// How forgiving decoding is. Truncated data (a length that runs past the end) is an error in
/// every mode: there is no way to guess the missing bytes.
public enum NDEFLeniency: Sendable, Hashable {
    /// The NFC Forum rules hold: MB on the first record only, ME on the last, no dangling chunk,
    /// TYPE_LENGTH/ID_LENGTH/PAYLOAD_LENGTH as the TNF demands, TNF 7 refused, and record payloads
    /// (URI codes, text status bytes, smart poster contents) as their RTD defines them.
    case strict
    /// Flag and length-rule violations are tolerated and records are kept as found; an undefined
    /// URI code reads as "no prefix", undecodable text is decoded lossily.
    case relaxed
}

/// A field of an NDEF record whose length a TNF rules (NDEF 1.0 §3.3).
enum NDEFRecordField: Sendable, Hashable {
    case type, identifier, payload

    /// The length field's name in the record header (NDEF 1.0 §3.2).
    var lengthName: String {
        switch self {
        case .type: "TYPE_LENGTH"
        case .identifier: "ID_LENGTH"
        case .payload: "PAYLOAD_LENGTH"
        }
    }
}

/// A record that breaks its TNF's rules. Both directions refuse the same records through
/// ``TypeNameFormat/lengthViolation(type:identifier:payload:)``: the strict decoder
/// (``NDEFMessage/init(bytes:leniency:)``) reports it at the record's offset, and the JSON form
/// (``NDEFRecordJSON/makeRecord()``) refuses to encode it, naming the field.
enum NDEFLengthViolation: Sendable, Hashable {
    /// The field must be empty for this TNF (TNF 0: all three; TNF 5: the TYPE).
    case mustBeEmpty(NDEFRecordField, TypeNameFormat)
    /// TNF 1–4 name the payload's type in the TYPE field, so it must not be empty.
    case needsType(TypeNameFormat)
    /// TNF 6 marks a middle or last chunk (§3.2.3) and cannot begin a record.
    case unchangedOutsideAChunk
    /// TNF 7 is reserved (§3.2.6).
    case reserved

    /// The rule broken, in the decoder's words ("PAYLOAD_LENGTH must be 0 for TNF 0 (empty)").
    var description: String {
        switch self {
        case let .mustBeEmpty(field, tnf): "\(field.lengthName) must be 0 for TNF \(tnf.rawValue) (\(tnf.name))"
        case let .needsType(tnf): "TYPE_LENGTH must be > 0 for TNF \(tnf.rawValue)"
        case .unchangedOutsideAChunk: "TNF 6 (unchanged) outside a chunked record"
        case .reserved: "TNF 7 is reserved"
        }
    }

    /// The section of NDEF 1.0 that states the rule.
    var section: String {
        switch self {
        case .mustBeEmpty, .needsType: "§3.3"
        case .unchangedOutsideAChunk: "§3.2.3"
        case .reserved: "§3.2.6"
        }
    }
}

extension TypeNameFormat {
    /// The lower-case name the rules' messages use ("empty", "unknown").
    var name: String {
        switch self {
        case .empty: "empty"
        case .wellKnown: "well-known"
        case .mimeMedia: "MIME media"
        case .absoluteURI: "absolute URI"
        case .external: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        case .reserved: "reserved"
        }
    }

    /// The first rule of this TNF that a record which is not a middle or last chunk, with these
    /// fields, breaks; nil when it keeps them all. Source: NFC Forum NDEF 1.0 §3.3 (TNF 0: TYPE, ID
    /// and PAYLOAD empty; TNF 1–4: a TYPE; TNF 5: no TYPE), §3.2.3 (TNF 6 only in a middle or last
    /// chunk) and §3.2.6 (TNF 7 reserved). The one rule table of both directions: the strict
    /// decoder and the JSON form's encoder ask it.
    func lengthViolation(type: [UInt8], identifier: [UInt8], payload: [UInt8]) -> NDEFLengthViolation? {
        switch self {
        case .empty:
            let fields: [(NDEFRecordField, [UInt8])] = [(.type, type), (.identifier, identifier), (.payload, payload)]
            return fields.first { !$0.1.isEmpty }.map { .mustBeEmpty($0.0, self) }
        case .wellKnown, .mimeMedia, .absoluteURI, .external:
            return type.isEmpty ? .needsType(self) : nil
        case .unknown:
            return type.isEmpty ? nil : .mustBeEmpty(.type, self)
        case .unchanged:
            return .unchangedOutsideAChunk
        case .reserved:
            return .reserved
        }
    }
}
