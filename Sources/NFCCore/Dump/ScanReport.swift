import FoundationEssentials

/// What a scan learnt about one tag, as one JSON object: the line `nfcbridge scan --json` prints
/// and the payload the agent publishes as a scan event. Values only — no time, no reader — so the
/// same tag always gives the same bytes (see ``jsonLine()``).
///
/// ```json
/// {"atqa":"0044","cardFamily":"NTAG","cardType":"NTAG215","ndef":{"hex":"D1010855016162632E636F6D",
///  "records":[{"idHex":"","payloadHex":"016162632E636F6D","tnf":1,"type":"U","typeHex":"55",
///  "uri":"http://www.abc.com"}]},"product":"NTAG215","sak":"00","uid":"04A1B2C3D4E5F6",
///  "version":"0004040201001103"}
/// ```
///
/// Hex is uppercase without separators; `cardType` and `cardFamily` are the same strings the dump
/// JSON uses (``CardType/description``, ``CardFamily/description``). Keys whose value is unknown
/// are left out.
public struct ScanReport: Sendable, Codable, Equatable {
    /// UID (IDm for FeliCa), hex.
    public var uid: String
    /// ``CardType/description``, e.g. "NTAG215".
    public var cardType: String
    /// ``CardFamily/description``, e.g. "NTAG".
    public var cardFamily: String
    /// The exact product from the refinement tables, e.g. "NTAG215"; absent when not known.
    public var product: String?
    /// ATQA, MSB first ("0044"); ISO 14443-A only.
    public var atqa: String?
    /// SAK ("00"); ISO 14443-A only.
    public var sak: String?
    /// ATS without TL; ISO-DEP tags only.
    public var ats: String?
    /// The GET_VERSION answer (Type 2) or DESFire version, hex.
    public var version: String?
    /// FeliCa PMm, hex.
    public var pmm: String?
    /// FeliCa system code, hex.
    public var systemCode: String?
    /// ISO 14443-B: the ATQB's Application Data (AFI, CRC_B(AID), number of applications), hex.
    public var applicationData: String?
    /// ISO 14443-B: the ATQB's Protocol Info (bit rates, frame size and protocol type, FWI/ADC/FO), hex.
    public var protocolInfo: String?
    /// The tag's NDEF message; absent when the tag holds none (not formatted, no NDEF TLV/file), or
    /// when it could not be read (then ``ndefStatus`` says so).
    public var ndef: NDEFContent?
    /// Why there is no ``ndef`` although there may be a message: `unreadable` (the tag is NDEF formatted
    /// but refused or garbled the message: a protected page, a failed authentication, a bad TLV) or
    /// `not_read` (NDEF is not read from this tag type or through this reader). Absent when the message
    /// was read or the tag holds none.
    public var ndefStatus: String?
    /// The error behind ``ndefStatus``: its stable code (`auth_required`, `unsupported`, …) and message.
    public var ndefError: ErrorDetail?
    /// The refinement steps the reader could not take (``CardInfo/notRefined``); absent when none.
    public var notRefined: [RefinementGap]?

    /// An error as the report carries it.
    public struct ErrorDetail: Sendable, Codable, Equatable {
        /// The stable ``NFCError/code``.
        public var code: String
        /// The human ``NFCError/message``.
        public var message: String

        /// The code and message of `error`.
        public init(_ error: NFCError) {
            code = error.code
            message = error.message
        }
    }

    /// An NDEF message as read from a tag: the bytes and their records.
    public struct NDEFContent: Sendable, Codable, Equatable {
        /// The message bytes (inside the NDEF TLV or file), hex; `""` for an empty message.
        public var hex: String
        /// The records, in the ``NDEFRecordJSON`` form; empty when the bytes do not decode.
        public var records: [NDEFRecordJSON]
        /// Why the bytes did not decode as NDEF (an ``NFCError/invalidNDEF(_:)`` message); absent
        /// when they did.
        public var error: String?

        /// Decodes `message` leniently (a tag's NDEF is reported as found, not judged).
        public init(message: [UInt8]) {
            hex = message.hexString
            do {
                records = try NDEFMessage(bytes: message, leniency: .relaxed).records.map(NDEFRecordJSON.init(record:))
            } catch {
                records = []
                self.error = error.message
            }
        }
    }

    /// The report for an identified tag and, when it has one, its NDEF message bytes.
    public init(cardInfo: CardInfo, ndefMessage: [UInt8]? = nil) {
        uid = cardInfo.uid.hexString
        cardType = cardInfo.type.description
        cardFamily = cardInfo.type.family.description
        product = cardInfo.product?.name
        atqa = cardInfo.atqa?.hexString
        sak = cardInfo.sak?.hexString
        ats = cardInfo.ats?.hexString
        version = cardInfo.version?.hexString
        pmm = cardInfo.pmm?.hexString
        systemCode = cardInfo.systemCode?.hexString
        applicationData = cardInfo.applicationData?.hexString
        protocolInfo = cardInfo.protocolInfo?.hexString
        notRefined = cardInfo.notRefined.isEmpty ? nil : cardInfo.notRefined
        ndef = ndefMessage.map(NDEFContent.init(message:))
    }

    /// The report for an identified tag and what ``NDEFReader`` found on it: the message as ``ndef``,
    /// or for an unreadable or unread one ``ndefStatus`` and ``ndefError``.
    public init(cardInfo: CardInfo, ndef result: NDEFReadResult) {
        self.init(cardInfo: cardInfo, ndefMessage: result.message)
        if let error = result.error {
            ndefStatus = result.status
            ndefError = ErrorDetail(error)
        }
    }

    /// The report as one line of JSON (no newline): keys sorted, slashes not escaped, so the same
    /// tag always gives the same bytes.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, optionals and arrays of such cannot fail.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A one-line human summary: UID, type, product, ATQA/SAK, and the first record of the NDEF
    /// message ("04A1B2C3D4E5F6  NTAG215  ATQA 0044 SAK 00  NDEF 1 record: URI http://www.abc.com"), or
    /// why it was not read ("NDEF unreadable (auth_required)", "NDEF not read (unsupported)").
    public var summaryLine: String {
        var parts = [uid, cardType]
        if let product, product != cardType { parts.append("(\(product))") }
        if let atqa, let sak { parts.append("ATQA \(atqa) SAK \(sak)") }
        if let ats { parts.append("ATS \(ats)") }
        if let systemCode { parts.append("system code \(systemCode)") }
        if let applicationData, let protocolInfo { parts.append("ATQB application data \(applicationData) protocol info \(protocolInfo)") }
        if let ndef {
            let count = ndef.records.count
            var text = "NDEF \(count) record\(count == 1 ? "" : "s")"
            if let first = ndef.records.first {
                text += ": " + (first.uri.map { "URI \($0)" } ?? first.text.map { "Text \($0)" }
                    ?? first.mimeType.map { "MIME \($0)" } ?? first.type ?? "TNF \(first.tnf ?? 0)")
            } else if ndef.error != nil {
                text += " (undecodable)"
            }
            parts.append(text)
        } else if let ndefStatus, let ndefError {
            parts.append("NDEF \(ndefStatus.replacing("_", with: " ")) (\(ndefError.code))")
        }
        return parts.joined(separator: "  ")
    }
}

extension Error {
    /// The human message of an ``NFCError``, or the error's description.
    fileprivate var message: String {
        (self as? NFCError)?.message ?? "\(self)"
    }
}
