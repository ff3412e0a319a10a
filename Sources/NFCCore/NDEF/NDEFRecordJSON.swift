import FoundationEssentials

/// The JSON form of one NDEF record, shared by the CLI (`nfcbridge ndef`), the agent's MQTT scan
/// events and the MQTT `write` command.
///
/// Output (``init(record:)``) always carries the raw fields `tnf`, `typeHex`, `idHex`,
/// `payloadHex` (and `type` when the TYPE is text), plus decoded fields where they apply: `uri`,
/// `text`/`lang`/`encoding`, `mimeType`, and for a smart poster `title` and the nested `records`.
///
/// Input (``makeRecord()``) takes either that raw form — `tnf` with `typeHex` or `type`,
/// `payloadHex`, `idHex`; decoded fields may accompany it but must then agree with the raw
/// bytes — or a shorthand without `tnf`:
/// - `uri` (plus `title` and `lang`: a smart poster),
/// - `text` (plus `lang`, default `en`, and `encoding`, `utf-8` or `utf-16`),
/// - `mimeType` (plus `payloadHex`).
/// `idHex` may accompany every shorthand. Unknown fields, wrong JSON types and bad values throw
/// ``NFCError/invalidArgument(_:)`` naming the field.
public struct NDEFRecordJSON: Codable, Sendable, Equatable {
    /// The Type Name Format, 0–7.
    public var tnf: Int?
    /// TYPE as UTF-8 text (`U`, `text/plain`, `android.com:pkg`, an absolute URI).
    public var type: String?
    /// TYPE as uppercase hex.
    public var typeHex: String?
    /// ID as uppercase hex (empty when the record has none).
    public var idHex: String?
    /// PAYLOAD as uppercase hex.
    public var payloadHex: String?
    /// The URI of a URI, absolute-URI or smart poster record.
    public var uri: String?
    /// The text of a Text record.
    public var text: String?
    /// The language code of a Text record (or of a smart poster's title, on input).
    public var lang: String?
    /// The encoding of a Text record: `utf-8` or `utf-16`.
    public var encoding: String?
    /// The MIME type of a MIME media record.
    public var mimeType: String?
    /// The first title of a smart poster.
    public var title: String?
    /// The nested records of a smart poster.
    public var records: [NDEFRecordJSON]?

    /// How deep smart posters nested in smart posters are expanded into `records`: bounded so a
    /// crafted tag cannot recurse without end.
    static let maximumNesting = 4

    /// An empty value, to fill field by field.
    public init() {}

    /// The JSON form of `record`.
    public init(record: NDEFRecord) {
        self.init(record: record, depth: 0)
    }

    private init(record: NDEFRecord, depth: Int) {
        tnf = Int(record.tnf.rawValue)
        type = record.typeText
        typeHex = record.type.hexString
        idHex = record.identifier.hexString
        payloadHex = record.payload.hexString
        if let textRecord = record.text {
            text = textRecord.text
            lang = textRecord.language
            encoding = textRecord.encoding.rawValue
        }
        mimeType = record.mimeType
        if let poster = record.smartPoster {
            uri = poster.uri
            title = poster.title
            if depth < Self.maximumNesting, let nested = try? NDEFMessage(bytes: record.payload, leniency: .relaxed) {
                records = nested.records.map { NDEFRecordJSON(record: $0, depth: depth + 1) }
            }
        } else {
            uri = record.uri
        }
    }

    /// The record this JSON describes (raw form or shorthand, see the type's documentation).
    public func makeRecord() throws(NFCError) -> NDEFRecord {
        let identifier = try Self.hex(idHex, field: "idHex") ?? []
        if let tnf {
            return try makeRawRecord(tnf: tnf, identifier: identifier)
        }
        var record: NDEFRecord
        if let uri {
            try rejectFields(["text", "encoding", "mimeType", "payloadHex", "typeHex", "type", "records"], with: "uri")
            if let title {
                record = .smartPoster(uri: uri, title: title, language: try language())
            } else {
                if lang != nil { throw NFCError.invalidArgument("lang: only used with text, or with uri and title") }
                record = .uri(uri)
            }
        } else if let text {
            try rejectFields(["title", "mimeType", "payloadHex", "typeHex", "type", "records"], with: "text")
            let encoding: TextRecord.Encoding
            switch self.encoding {
            case nil: encoding = .utf8
            case let name?:
                guard let known = TextRecord.Encoding(rawValue: name.lowercased()) else {
                    throw NFCError.invalidArgument("encoding: must be \"utf-8\" or \"utf-16\", not \"\(name)\"")
                }
                encoding = known
            }
            record = .text(text, language: try language(), encoding: encoding)
        } else if let mimeType {
            try rejectFields(["title", "lang", "encoding", "typeHex", "type", "records"], with: "mimeType")
            guard !mimeType.isEmpty else { throw NFCError.invalidArgument("mimeType: must not be empty") }
            try Self.checkFieldLength(Array(mimeType.utf8), field: "mimeType")
            record = .mime(type: mimeType, payload: try Self.hex(payloadHex, field: "payloadHex") ?? [])
        } else if typeHex != nil || type != nil || payloadHex != nil {
            throw NFCError.invalidArgument("tnf: required with typeHex, type or payloadHex (or use uri, text or mimeType)")
        } else {
            throw NFCError.invalidArgument(
                "record: empty; give uri, text, mimeType (+ payloadHex) or tnf + typeHex/type + payloadHex")
        }
        try Self.checkFieldLength(identifier, field: "idHex")
        record.identifier = identifier
        return record
    }

    /// The raw form: the bytes are authoritative and decoded fields, when given, must agree.
    private func makeRawRecord(tnf: Int, identifier: [UInt8]) throws(NFCError) -> NDEFRecord {
        guard let format = UInt8(exactly: tnf).flatMap(TypeNameFormat.init(rawValue:)) else {
            throw NFCError.invalidArgument("tnf: must be 0…7, not \(tnf)")
        }
        var typeBytes: [UInt8] = []
        if let fromHex = try Self.hex(typeHex, field: "typeHex") {
            typeBytes = fromHex
            if let type, Array(type.utf8) != fromHex {
                throw NFCError.invalidArgument("type: \"\(type)\" does not match typeHex \(fromHex.hexString)")
            }
        } else if let type {
            typeBytes = Array(type.utf8)
        }
        try Self.checkFieldLength(typeBytes, field: typeHex != nil ? "typeHex" : "type")
        try Self.checkFieldLength(identifier, field: "idHex")
        let record = NDEFRecord(tnf: format, type: typeBytes, identifier: identifier,
                                payload: try Self.hex(payloadHex, field: "payloadHex") ?? [])
        if payloadHex == nil, let field = [uri.map { _ in "uri" }, text.map { _ in "text" },
                                           mimeType.map { _ in "mimeType" }, title.map { _ in "title" }]
            .compactMap({ $0 }).first {
            throw NFCError.invalidArgument(
                "payloadHex: required with tnf; drop tnf to build the record from \(field)")
        }
        let derived = NDEFRecordJSON(record: record)
        let checks: [(String, Bool)] = [
            ("uri", uri == nil || uri == derived.uri),
            ("text", text == nil || text == derived.text),
            ("lang", lang == nil || lang == derived.lang),
            ("encoding", encoding == nil || encoding == derived.encoding),
            ("mimeType", mimeType == nil || mimeType == derived.mimeType),
            ("title", title == nil || title == derived.title),
            ("records", records == nil || records == derived.records),
        ]
        if let field = checks.first(where: { !$0.1 })?.0 {
            throw NFCError.invalidArgument("\(field): does not match payloadHex (the raw bytes win; edit them or drop tnf)")
        }
        try checkLengthRules(record)
        return record
    }

    /// Refuses a raw record the strict decoder would refuse (``TypeNameFormat/lengthViolation(type:identifier:payload:)``,
    /// the decoder's own rules), naming the JSON field at fault and what to do.
    private func checkLengthRules(_ record: NDEFRecord) throws(NFCError) {
        guard let violation = record.tnf.lengthViolation(type: record.type, identifier: record.identifier,
                                                         payload: record.payload)
        else { return }
        let rule = "\(violation.description), NDEF 1.0 \(violation.section)"
        let typeField = typeHex == nil && type != nil ? "type" : "typeHex"
        switch violation {
        case let .mustBeEmpty(field, _):
            let name = switch field {
            case .type: typeField
            case .identifier: "idHex"
            case .payload: "payloadHex"
            }
            throw NFCError.invalidArgument("\(name): \(rule): drop \(name) or give another tnf")
        case .needsType:
            throw NFCError.invalidArgument("\(typeField): \(rule): give typeHex or type")
        case .unchangedOutsideAChunk:
            throw NFCError.invalidArgument(
                "tnf: \(rule): records are written unchunked; use tnf 5 (unknown) for a payload without a type")
        case .reserved:
            throw NFCError.invalidArgument("tnf: \(rule): use tnf 0 to 5")
        }
    }

    private func language() throws(NFCError) -> String {
        let language = lang ?? "en"
        guard !language.isEmpty, language.utf8.count <= 63 else {
            throw NFCError.invalidArgument("lang: must be 1 to 63 bytes, got \(language.utf8.count)")
        }
        return language
    }

    private func rejectFields(_ names: [String], with main: String) throws(NFCError) {
        let present: [String: Bool] = [
            "text": text != nil, "encoding": encoding != nil, "mimeType": mimeType != nil,
            "payloadHex": payloadHex != nil, "typeHex": typeHex != nil, "type": type != nil,
            "records": records != nil, "title": title != nil, "lang": lang != nil,
        ]
        if let name = names.first(where: { present[$0] == true }) {
            throw NFCError.invalidArgument("\(name): not used with \(main) (give tnf for a raw record)")
        }
    }

    private static func hex(_ text: String?, field: String) throws(NFCError) -> [UInt8]? {
        guard let text else { return nil }
        guard let bytes = [UInt8](hex: text) else {
            throw NFCError.invalidArgument("\(field): not valid hex")
        }
        return bytes
    }

    private static func checkFieldLength(_ bytes: [UInt8], field: String) throws(NFCError) {
        guard bytes.count <= 255 else {
            throw NFCError.invalidArgument("\(field): \(bytes.count) bytes, at most 255 fit")
        }
    }

    // MARK: Codable — strict: unknown fields and wrong JSON types name the field.

    enum CodingKeys: String, CodingKey, CaseIterable {
        case tnf, type, typeHex, idHex, payloadHex, uri, text, lang, encoding, mimeType, title, records
    }

    /// Decodes a record object, refusing unknown fields and wrong types with
    /// ``NFCError/invalidArgument(_:)`` naming the field (with its path, such as `records[1].uri`).
    public init(from decoder: any Decoder) throws {
        let path = JSONFieldPath(decoder.codingPath)
        let any = try Self.container(decoder, path: path)
        let known = Set(CodingKeys.allCases.map(\.stringValue))
        if let unknown = any.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
            throw NFCError.invalidArgument("\(path.appending(unknown)): unknown field")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field<T: Decodable>(_ key: CodingKeys, _: T.Type, _ kind: String) throws -> T? {
            do {
                return try container.decodeIfPresent(T.self, forKey: key)
            } catch let error as NFCError {
                throw error
            } catch {
                throw NFCError.invalidArgument("\(path.appending(key.stringValue)): must be \(kind)")
            }
        }
        tnf = try field(.tnf, Int.self, "an integer 0…7")
        type = try field(.type, String.self, "a string")
        typeHex = try field(.typeHex, String.self, "a hex string")
        idHex = try field(.idHex, String.self, "a hex string")
        payloadHex = try field(.payloadHex, String.self, "a hex string")
        uri = try field(.uri, String.self, "a string")
        text = try field(.text, String.self, "a string")
        lang = try field(.lang, String.self, "a string")
        encoding = try field(.encoding, String.self, "a string")
        mimeType = try field(.mimeType, String.self, "a string")
        title = try field(.title, String.self, "a string")
        records = try field(.records, [NDEFRecordJSON].self, "an array of records")
    }

    private static func container(_ decoder: any Decoder, path: JSONFieldPath) throws -> KeyedDecodingContainer<AnyJSONKey> {
        do {
            return try decoder.container(keyedBy: AnyJSONKey.self)
        } catch {
            throw NFCError.invalidArgument("\(path.isEmpty ? "record" : path.description): must be an object")
        }
    }
}

/// Any JSON object key, to list the keys a record object really has.
struct AnyJSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// A coding path rendered as `records[1].title` for error messages.
struct JSONFieldPath: CustomStringConvertible {
    var description: String

    init(_ codingPath: [any CodingKey]) {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        description = text
    }

    var isEmpty: Bool { description.isEmpty }

    func appending(_ field: String) -> String {
        description.isEmpty ? field : "\(description).\(field)"
    }
}
