extension NDEFRecord {
    /// A MIME media record (TNF 2): `type` such as `text/plain` or `application/json` (RFC 2046).
    public static func mime(type: String, payload: [UInt8]) -> NDEFRecord {
        NDEFRecord(tnf: .mimeMedia, type: Array(type.utf8), payload: payload)
    }

    /// The MIME type of a MIME media record (TNF 2), nil for other records or a TYPE that is not text.
    public var mimeType: String? {
        tnf == .mimeMedia ? typeText : nil
    }
}
