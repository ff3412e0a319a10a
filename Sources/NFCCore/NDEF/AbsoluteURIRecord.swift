extension NDEFRecord {
    /// An absolute-URI record (TNF 3). The URI lives in the TYPE field and the payload is empty
    /// (NDEF 1.0 §3.2.6; upstream wrongly read the URI from the payload).
    public static func absoluteURI(_ uri: String) -> NDEFRecord {
        NDEFRecord(tnf: .absoluteURI, type: Array(uri.utf8))
    }

    /// The URI of a TNF 3 record, read from its TYPE field (decoded leniently).
    var absoluteURI: String? {
        tnf == .absoluteURI ? String(decoding: type, as: UTF8.self) : nil
    }
}
