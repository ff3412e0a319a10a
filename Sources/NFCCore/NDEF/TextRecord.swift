/// The content of a Text record (well-known type `T`): a status byte (bit 7: UTF-16, bits 5–0:
/// language code length), the IANA language code, then the text.
/// Source: NFC Forum Text RTD 1.0, §3.2.1 (status byte, Table 3) and §3.4 (UTF-16 byte order:
/// big-endian unless a byte-order mark says otherwise).
public struct TextRecord: Sendable, Hashable {
    /// The RTD type name `T`.
    public static let recordType: [UInt8] = [0x54]

    /// The text encoding named by bit 7 of the status byte; raw values are the JSON spellings.
    public enum Encoding: String, Sendable, Hashable, CaseIterable {
        case utf8 = "utf-8"
        case utf16 = "utf-16"
    }

    /// The text.
    public var text: String
    /// The IANA language code (`en`, `el`, `en-US`). At most 63 bytes can be encoded.
    public var language: String
    /// How the text is encoded on the tag.
    public var encoding: Encoding

    /// A Text record's content.
    public init(text: String, language: String = "en", encoding: Encoding = .utf8) {
        self.text = text
        self.language = language
        self.encoding = encoding
    }

    private static let utf16Flag: UInt8 = 0x80
    private static let languageLengthMask: UInt8 = 0x3F

    /// Decodes a Text record payload.
    /// - Parameter leniency: `.strict` refuses a zero language length and text or language that
    ///   does not decode; `.relaxed` decodes them lossily. A payload too short for its language
    ///   length is an error in both modes.
    public init(payload: [UInt8], leniency: NDEFLeniency = .strict) throws(NFCError) {
        guard let status = payload.first else {
            throw NFCError.invalidNDEF("Text record payload is empty (offset 0: status byte missing)")
        }
        let languageLength = Int(status & Self.languageLengthMask)
        if languageLength == 0 && leniency == .strict {
            throw NFCError.invalidNDEF("offset 0: Text record language code length can not be zero")
        }
        guard payload.count >= 1 + languageLength else {
            throw NFCError.invalidNDEF(
                "offset 1: Text record language code needs \(languageLength) bytes but only \(payload.count - 1) remain")
        }
        let languageBytes = Array(payload[1..<(1 + languageLength)])
        let textBytes = Array(payload[(1 + languageLength)...])
        language = try String(ndefUTF8: languageBytes, leniency: leniency,
                              orThrow: NFCError.invalidNDEF("offset 1: Text record language code is not ASCII"))
        let textOffset = 1 + languageLength
        if status & Self.utf16Flag != 0 {
            encoding = .utf16
            text = try Self.decodeUTF16(textBytes, offset: textOffset, leniency: leniency)
        } else {
            encoding = .utf8
            text = try String(ndefUTF8: textBytes, leniency: leniency,
                              orThrow: NFCError.invalidNDEF("offset \(textOffset): Text record text is not valid UTF-8"))
        }
    }

    /// UTF-16 with an optional byte-order mark; big-endian without one (Text RTD §3.4).
    private static func decodeUTF16(_ bytes: [UInt8], offset: Int, leniency: NDEFLeniency) throws(NFCError) -> String {
        var body = bytes[...]
        var littleEndian = false
        if body.starts(with: [0xFE, 0xFF]) {
            body = body.dropFirst(2)
        } else if body.starts(with: [0xFF, 0xFE]) {
            body = body.dropFirst(2)
            littleEndian = true
        }
        if body.count % 2 != 0 {
            if leniency == .strict {
                throw NFCError.invalidNDEF("offset \(offset): Text record UTF-16 text has an odd number of bytes")
            }
            body = body.dropLast()
        }
        var units: [UInt16] = []
        units.reserveCapacity(body.count / 2)
        var index = body.startIndex
        while index < body.endIndex {
            let first = UInt16(body[index]), second = UInt16(body[index + 1])
            units.append(littleEndian ? second << 8 | first : first << 8 | second)
            index += 2
        }
        if let decoded = String(validating: units, as: UTF16.self) { return decoded }
        if leniency == .strict {
            throw NFCError.invalidNDEF("offset \(offset): Text record text is not valid UTF-16")
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// The payload. UTF-16 text is written little-endian after the byte-order mark FF FE (as
    /// ndeflib does); a language code longer than 63 bytes is cut to the 6-bit length field.
    public var payload: [UInt8] {
        let languageBytes = Array(language.utf8.prefix(Int(Self.languageLengthMask)))
        var status = UInt8(languageBytes.count)
        var body: [UInt8]
        switch encoding {
        case .utf8:
            body = Array(text.utf8)
        case .utf16:
            status |= Self.utf16Flag
            body = [0xFF, 0xFE]
            for unit in text.utf16 { body += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        }
        return [status] + languageBytes + body
    }
}

extension NDEFRecord {
    /// A Text record (well-known `T`).
    public static func text(_ text: String, language: String = "en", encoding: TextRecord.Encoding = .utf8) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: TextRecord.recordType,
                   payload: TextRecord(text: text, language: language, encoding: encoding).payload)
    }

    /// The text of a Text record (decoded leniently), nil for other records or a payload too short
    /// for its language code.
    public var text: TextRecord? {
        guard isWellKnown(TextRecord.recordType) else { return nil }
        return try? TextRecord(payload: payload, leniency: .relaxed)
    }
}
