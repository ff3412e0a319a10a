extension NDEFRecord {
    /// The prefix of external type names in their URN form (NFC Forum RTD 1.0, §3.2 and §3.3).
    static let externalURNPrefix = "urn:nfc:ext:"

    /// An NFC Forum external record (TNF 4), `type` as `domain:type` (for example
    /// `android.com:pkg`); a leading `urn:nfc:ext:` is dropped, since the TYPE field never holds it.
    public static func external(type: String, payload: [UInt8]) -> NDEFRecord {
        let name = type.hasPrefix(externalURNPrefix) ? String(type.dropFirst(externalURNPrefix.count)) : type
        return NDEFRecord(tnf: .external, type: Array(name.utf8), payload: payload)
    }

    /// The external type of a TNF 4 record as `domain:type`, nil for other records.
    public var externalType: String? {
        tnf == .external ? typeText : nil
    }
}
