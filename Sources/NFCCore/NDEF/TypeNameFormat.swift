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
