/// The NDEF messages a scenario puts on its virtual tags, encoded here from the NFC Forum
/// specifications (not with NFCCore's encoder, which is what the simulator tests):
/// - the record layout of NDEF 1.0 §3.2 (flags MB 80h, ME 40h, SR 10h; TNF 01h well-known,
///   02h MIME media; a short record's 1-byte PAYLOAD_LENGTH below 256 bytes, 4 bytes otherwise);
/// - the URI record of URI RTD 1.0 §3.2 (type `U`, an identifier code and the rest of the URI:
///   the longest prefix of Table 3 that matches is abbreviated);
/// - the Text record of Text RTD 1.0 §3.2.1 (type `T`, a status byte whose bits 5–0 give the
///   length of the IANA language code that follows, bit 7 clear: UTF-8).
enum ScenarioNDEF {
    enum Record {
        case uri(String)
        case text(String, language: String)
        case mime(type: String, payload: [UInt8])
    }

    /// URI RTD 1.0 §3.2.2, Table 3: the identifier code of each abbreviated prefix (00h: none).
    static let uriPrefixes: [(code: UInt8, prefix: String)] = [
        (0x01, "http://www."), (0x02, "https://www."), (0x03, "http://"), (0x04, "https://"),
        (0x05, "tel:"), (0x06, "mailto:"), (0x07, "ftp://anonymous:anonymous@"), (0x08, "ftp://ftp."),
        (0x09, "ftps://"), (0x0A, "sftp://"), (0x0B, "smb://"), (0x0C, "nfs://"), (0x0D, "ftp://"),
        (0x0E, "dav://"), (0x0F, "news:"), (0x10, "telnet://"), (0x11, "imap:"), (0x12, "rtsp://"),
        (0x13, "urn:"), (0x14, "pop:"), (0x15, "sip:"), (0x16, "sips:"), (0x17, "tftp:"),
        (0x18, "btspp://"), (0x19, "btl2cap://"), (0x1A, "btgoep://"), (0x1B, "tcpobex://"),
        (0x1C, "irdaobex://"), (0x1D, "file://"), (0x1E, "urn:epc:id:"), (0x1F, "urn:epc:tag:"),
        (0x20, "urn:epc:pat:"), (0x21, "urn:epc:raw:"), (0x22, "urn:epc:"), (0x23, "urn:nfc:"),
    ]

    /// The message: the records in order, the first with MB, the last with ME. Nil when a MIME
    /// type is longer than the 255 bytes TYPE_LENGTH can say, or a language code longer than 63.
    static func message(_ records: [Record]) -> [UInt8]? {
        var out: [UInt8] = []
        for (index, record) in records.enumerated() {
            var flags: UInt8 = 0
            if index == 0 { flags |= 0x80 }
            if index == records.count - 1 { flags |= 0x40 }
            let (tnf, type, payload): (UInt8, [UInt8], [UInt8])
            switch record {
            case let .uri(uri):
                let bytes = Array(uri.utf8)
                let match = uriPrefixes.filter { bytes.starts(with: $0.prefix.utf8) }
                    .max { $0.prefix.utf8.count < $1.prefix.utf8.count }
                let code = match?.code ?? 0x00
                (tnf, type, payload) = (0x01, [0x55], [code] + bytes.dropFirst(match?.prefix.utf8.count ?? 0))
            case let .text(text, language):
                let code = Array(language.utf8)
                guard code.count <= 0x3F else { return nil }
                (tnf, type, payload) = (0x01, [0x54], [UInt8(code.count)] + code + Array(text.utf8))
            case let .mime(mimeType, body):
                (tnf, type, payload) = (0x02, Array(mimeType.utf8), body)
            }
            guard type.count <= 255, UInt64(payload.count) <= UInt64(UInt32.max) else { return nil }
            if payload.count < 256 {
                out += [flags | 0x10 | tnf, UInt8(type.count), UInt8(payload.count)]
            } else {
                let length = UInt32(payload.count)
                out += [flags | tnf, UInt8(type.count)]
                out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) }
            }
            out += type + payload
        }
        return out
    }
}
