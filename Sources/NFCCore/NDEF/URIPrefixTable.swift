/// The URI identifier codes of the URI record: the prefix each code abbreviates.
/// Source: NFC Forum URI RTD 1.0, §3.2.2, Table 3. Codes 0x24–0xFF are reserved for future use and
/// read as "no prefix" (a reader must not fail on them; upstream indexed past its table).
enum URIPrefixTable {
    /// Index = identifier code.
    static let prefixes: [String] = [
        "",                            // 0x00 no prefix
        "http://www.",                 // 0x01
        "https://www.",                // 0x02
        "http://",                     // 0x03
        "https://",                    // 0x04
        "tel:",                        // 0x05
        "mailto:",                     // 0x06
        "ftp://anonymous:anonymous@",  // 0x07
        "ftp://ftp.",                  // 0x08
        "ftps://",                     // 0x09
        "sftp://",                     // 0x0A
        "smb://",                      // 0x0B
        "nfs://",                      // 0x0C
        "ftp://",                      // 0x0D
        "dav://",                      // 0x0E
        "news:",                       // 0x0F
        "telnet://",                   // 0x10
        "imap:",                       // 0x11 (not "imap://")
        "rtsp://",                     // 0x12
        "urn:",                        // 0x13
        "pop:",                        // 0x14
        "sip:",                        // 0x15
        "sips:",                       // 0x16
        "tftp:",                       // 0x17
        "btspp://",                    // 0x18
        "btl2cap://",                  // 0x19
        "btgoep://",                   // 0x1A
        "tcpobex://",                  // 0x1B
        "irdaobex://",                 // 0x1C
        "file://",                     // 0x1D
        "urn:epc:id:",                 // 0x1E
        "urn:epc:tag:",                // 0x1F
        "urn:epc:pat:",                // 0x20
        "urn:epc:raw:",                // 0x21
        "urn:epc:",                    // 0x22
        "urn:nfc:",                    // 0x23
    ]

    /// The prefix of `code`, or nil for a reserved code (0x24 and above).
    static func prefix(for code: UInt8) -> String? {
        Int(code) < prefixes.count ? prefixes[Int(code)] : nil
    }

    /// The code whose prefix is the LONGEST one `uri` starts with (so `https://www.` → 0x02, not
    /// 0x04 as upstream's first-match-from-the-top gave), and the rest of the URI.
    static func abbreviate(_ uri: String) -> (code: UInt8, remainder: String) {
        var best: (code: Int, length: Int) = (0, 0)
        for (code, prefix) in prefixes.enumerated() where prefix.utf8.count > best.length {
            if uri.utf8.starts(with: prefix.utf8) { best = (code, prefix.utf8.count) }
        }
        let remainder = String(decoding: uri.utf8.dropFirst(best.length), as: UTF8.self)
        return (UInt8(best.code), remainder)
    }
}
