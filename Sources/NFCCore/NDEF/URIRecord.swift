/// The content of a URI record (well-known type `U`): one identifier code byte that abbreviates a
/// prefix, then the rest of the URI in UTF-8. Source: NFC Forum URI RTD 1.0, §3.2.
public struct URIRecord: Sendable, Hashable {
    /// The RTD type name `U`.
    public static let recordType: [UInt8] = [0x55]

    /// The full URI, prefix expanded.
    public var uri: String

    /// A URI record's content.
    public init(uri: String) {
        self.uri = uri
    }

    /// Decodes a URI record payload.
    /// - Parameter leniency: `.strict` refuses an empty payload, a reserved identifier code
    ///   (0x24–0xFF) and a remainder that is not UTF-8; `.relaxed` reads a reserved code as no
    ///   prefix and decodes the remainder lossily. An empty payload is an error in both modes.
    public init(payload: [UInt8], leniency: NDEFLeniency = .strict) throws(NFCError) {
        guard let code = payload.first else {
            throw NFCError.invalidNDEF("URI record payload is empty (offset 0: identifier code missing)")
        }
        let prefix: String
        if let known = URIPrefixTable.prefix(for: code) {
            prefix = known
        } else if leniency == .strict {
            throw NFCError.invalidNDEF("offset 0: URI identifier code 0x\(code.hexString) is reserved")
        } else {
            prefix = ""
        }
        uri = prefix + (try String(ndefUTF8: Array(payload.dropFirst()), leniency: leniency,
                                   orThrow: NFCError.invalidNDEF("offset 1: URI record remainder is not valid UTF-8")))
    }

    /// The payload: the longest matching prefix abbreviated, then the rest in UTF-8.
    public var payload: [UInt8] {
        let (code, remainder) = URIPrefixTable.abbreviate(uri)
        return [code] + Array(remainder.utf8)
    }
}

extension NDEFRecord {
    /// A URI record (well-known `U`); the longest known prefix is abbreviated to its code.
    public static func uri(_ uri: String) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: URIRecord.recordType, payload: URIRecord(uri: uri).payload)
    }

    /// The URI this record carries: a URI record's (reserved codes read as no prefix), an
    /// absolute-URI record's (from its TYPE field) or a smart poster's. Nil for other records.
    public var uri: String? {
        switch tnf {
        case .wellKnown where type == URIRecord.recordType:
            return (try? URIRecord(payload: payload, leniency: .relaxed))?.uri
        case .wellKnown where type == SmartPoster.recordType:
            return smartPoster?.uri
        case .absoluteURI:
            return absoluteURI
        default:
            return nil
        }
    }
}
