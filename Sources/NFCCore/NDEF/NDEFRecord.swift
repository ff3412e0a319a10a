/// One NDEF record: its Type Name Format, TYPE, ID and PAYLOAD. A chunked record read from a tag
/// is already reassembled into one record (the payloads of its chunks joined in order).
///
/// Typed views decode the payload on demand: ``uri``, ``text``, ``smartPoster``, ``mimeType``,
/// ``externalType``; ``displayType`` and ``displayValue`` give the upstream one-line summary.
public struct NDEFRecord: Sendable, Hashable {
    /// How to read ``type``.
    public var tnf: TypeNameFormat
    /// The TYPE field: a well-known name (`T`, `U`, `Sp`), a MIME type, an absolute URI or an
    /// external `domain:type`, as bytes. At most 255 bytes can be encoded.
    public var type: [UInt8]
    /// The ID field (a URI reference in the NFC Forum sense), usually empty. At most 255 bytes.
    public var identifier: [UInt8]
    /// The PAYLOAD field.
    public var payload: [UInt8]

    /// A record from its raw fields.
    public init(tnf: TypeNameFormat, type: [UInt8] = [], identifier: [UInt8] = [], payload: [UInt8] = []) {
        self.tnf = tnf
        self.type = type
        self.identifier = identifier
        self.payload = payload
    }

    /// The empty record (TNF 0): what a freshly formatted tag often holds.
    public static let empty = NDEFRecord(tnf: .empty)

    /// True for a well-known record (TNF 1) of the given RTD type name.
    func isWellKnown(_ name: [UInt8]) -> Bool {
        tnf == .wellKnown && type == name
    }

    /// The TYPE field as UTF-8 text, or nil when it is not valid UTF-8.
    var typeText: String? {
        String(validating: type, as: UTF8.self)
    }
}
