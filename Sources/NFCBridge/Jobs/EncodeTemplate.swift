import NFCCore

/// The NDEF message an encode job writes, with placeholders that differ per tag: `{serial}` (the
/// tag's serial, optionally formatted: `{serial:06d}`, `{serial:x}`, `{serial:08X}`), `{uid}` (the
/// tag's UID, uppercase hex) and `{n}` (the serial's position in the roll, from 1). `{{` and `}}`
/// stand for literal braces. Parsed once when the job is made, so a bad placeholder is refused
/// before any tag is touched.
///
/// Records are the project's own NDEF record types (``URIRecord``, ``TextRecord``), built per tag by
/// ``message(for:)``.
package struct EncodeTemplate: Sendable, Equatable {
    /// One record of the template.
    package enum Record: Sendable, Equatable {
        /// A URI record (``URIRecord``): the URI, with placeholders.
        case uri(TemplateText)
        /// A Text record (``TextRecord``): the text, with placeholders, in `language`.
        case text(TemplateText, language: String)
    }

    /// The records, in order (at least one).
    package var records: [Record]

    /// Most records a template may have (a label carries a URL and maybe a text).
    static let maximumRecords = 8

    /// Creates a template; `records` must not be empty.
    package init(records: [Record]) throws(CommandError) {
        guard !records.isEmpty else { throw .invalid("template.records", "give at least one record") }
        guard records.count <= Self.maximumRecords else {
            throw .invalid("template.records", "at most \(Self.maximumRecords) records, not \(records.count)")
        }
        self.records = records
    }

    /// The values a template is filled with for one tag.
    package struct Fill: Sendable, Equatable {
        /// The serial handed to the tag.
        package var serial: Serial
        /// The tag's UID.
        package var uid: [UInt8]
        /// The serial's position in the roll, from 1.
        package var n: Int

        /// Creates the values for one tag.
        package init(serial: Serial, uid: [UInt8], n: Int) {
            self.serial = serial
            self.uid = uid
            self.n = n
        }
    }

    /// The NDEF message bytes for one tag. Throws `invalid_request` when a serial cannot take the
    /// template's number format (a text serial in `{serial:06d}`).
    package func message(for fill: Fill) throws(CommandError) -> [UInt8] {
        var built: [NDEFRecord] = []
        for record in records {
            switch record {
            case let .uri(text): built.append(.uri(try text.render(fill)))
            case let .text(text, language): built.append(.text(try text.render(fill), language: language))
            }
        }
        do {
            return try NDEFMessage(records: built).bytes
        } catch {
            throw CommandError(.invalidRequest, "template: the message cannot be encoded: \(error.message)")
        }
    }

    /// Checks that every serial of `serials` fits the template's formats (before the job starts).
    package func check(_ serials: SerialSource) throws(CommandError) {
        guard case .list = serials else { return }
        for index in 0..<serials.count {
            _ = try message(for: Fill(serial: serials.serial(at: index), uid: [0, 0, 0, 0], n: index + 1))
        }
    }

    // MARK: - JSON (the form `request/job` and `nfcbridge encode --records` take)

    /// Parses the `records` list (`[{"uri":…}, {"text":…, "lang":…}]`, or one record object).
    package init(json: JSONValue) throws(CommandError) {
        let list = json.arrayValue ?? [json]
        var records: [Record] = []
        for (index, element) in list.enumerated() {
            let field = "template.records[\(index)]"
            guard let object = element.objectValue else { throw .invalid(field, "must be an object") }
            let unknown = Set(object.keys).subtracting(["uri", "text", "lang"])
            guard unknown.isEmpty else { throw .invalid(field, "unknown field \(unknown.sorted().joined(separator: ", "))") }
            if let uri = object["uri"] {
                guard let uri = uri.stringValue, object["text"] == nil, object["lang"] == nil else {
                    throw .invalid(field, "`uri` is a string, alone in its record")
                }
                records.append(.uri(try TemplateText(parsing: uri)))
            } else if let text = object["text"]?.stringValue {
                let lang = object["lang"].map { $0.stringValue ?? "" } ?? "en"
                guard (1...35).contains(lang.utf8.count) else { throw .invalid(field + ".lang", "a language tag such as en") }
                records.append(.text(try TemplateText(parsing: text), language: lang))
            } else {
                throw .invalid(field, "each record needs `uri` or `text` (a string)")
            }
        }
        try self.init(records: records)
    }

    /// The records as JSON (what ``init(json:)`` reads), for the journal.
    package var json: JSONValue {
        .array(records.map { record in
            switch record {
            case let .uri(text): .object(["uri": .string(text.source)])
            case let .text(text, language): .object(["text": .string(text.source), "lang": .string(language)])
            }
        })
    }
}

/// A string with placeholders, parsed into literal and placeholder parts.
package struct TemplateText: Sendable, Equatable {
    /// One part of the text.
    enum Part: Sendable, Equatable {
        case literal(String)
        case serial(SerialFormat)
        case uid
        case n
    }

    /// The text as written (kept for the journal, which stores the job as given).
    package let source: String
    let parts: [Part]

    /// Longest template string (a URL on a 144-byte NTAG213 is far shorter).
    static let maximumLength = 2048

    /// Parses `source`; an unknown placeholder, a bad format or an unbalanced brace is `invalid_request`.
    package init(parsing source: String) throws(CommandError) {
        guard source.utf8.count <= Self.maximumLength else {
            throw .invalid("template", "a record of \(source.utf8.count) bytes is over \(Self.maximumLength)")
        }
        self.source = source
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(source)
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == "}" {
                guard rest.first == "}" else { throw .invalid("template", "a lone `}` in '\(source)' (write `}}`)") }
                rest = rest.dropFirst()
                literal.append("}")
                continue
            }
            guard character == "{" else {
                literal.append(character)
                continue
            }
            if rest.first == "{" {
                rest = rest.dropFirst()
                literal.append("{")
                continue
            }
            guard let close = rest.firstIndex(of: "}") else {
                throw .invalid("template", "an unclosed `{` in '\(source)' (write `{{` for a brace)")
            }
            let name = rest[..<close]
            rest = rest[rest.index(after: close)...]
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(try Self.placeholder(name, in: source))
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    private static func placeholder(_ name: Substring, in source: String) throws(CommandError) -> Part {
        switch name {
        case "uid": return .uid
        case "n": return .n
        case "serial": return .serial(SerialFormat())
        default:
            guard name.hasPrefix("serial:") else {
                throw .invalid("template", "unknown placeholder {\(name)} in '\(source)' (known: {serial}, {serial:06d}, {uid}, {n})")
            }
            return .serial(try SerialFormat(parsing: name.dropFirst("serial:".count)))
        }
    }

    /// The text for one tag.
    func render(_ fill: EncodeTemplate.Fill) throws(CommandError) -> String {
        var text = ""
        for part in parts {
            switch part {
            case let .literal(literal): text += literal
            case .uid: text += fill.uid.hexString
            case .n: text += String(fill.n)
            case let .serial(format): text += try format.render(fill.serial)
            }
        }
        return text
    }
}

/// The printf-like format of `{serial:…}`: `[0][width](d|x|X)` — `06d` pads a decimal to 6 digits
/// with zeros, `8x` pads lowercase hex to 8 with spaces; none: the serial as it is.
package struct SerialFormat: Sendable, Equatable {
    /// Pad with zeros instead of spaces.
    var zeroPad = false
    /// Minimum width (0: none).
    var width = 0
    /// Radix and case: `d` (10), `x` (16, lowercase), `X` (16, uppercase); nil: as given.
    var conversion: Character?

    /// Widest padding accepted.
    static let maximumWidth = 32

    init() {}

    init(parsing spec: Substring) throws(CommandError) {
        guard let last = spec.last, ["d", "x", "X"].contains(last) else {
            throw .invalid("template", "{serial:\(spec)}: the format ends in d, x or X (e.g. {serial:06d})")
        }
        var digits = spec.dropLast()
        if digits.first == "0" {
            zeroPad = true
            digits = digits.dropFirst()
        }
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let width = digits.isEmpty ? 0 : Int(digits),
            width <= Self.maximumWidth
        else {
            throw .invalid("template", "{serial:\(spec)}: the width is a number up to \(Self.maximumWidth)")
        }
        self.width = width
        conversion = last
    }

    /// `serial` in this format; a text serial only takes a format without conversion.
    func render(_ serial: Serial) throws(CommandError) -> String {
        var digits: String
        switch (serial, conversion) {
        case let (.text(text), nil): return text
        case let (.text(text), .some(conversion)):
            throw .invalid("template", "the serial '\(text)' is not a number for {serial:…\(conversion)}")
        case let (.number(value), nil): return String(value)
        case let (.number(value), .some(conversion)):
            digits = conversion == "d" ? String(value) : String(value, radix: 16, uppercase: conversion == "X")
        }
        guard digits.count < width else { return digits }
        let negative = digits.hasPrefix("-")
        if negative { digits.removeFirst() }
        let pad = String(repeating: zeroPad ? "0" : " ", count: width - digits.count - (negative ? 1 : 0))
        return zeroPad ? (negative ? "-" : "") + pad + digits : pad + (negative ? "-" : "") + digits
    }
}
