/// One serial handed to a tag: a number (from a `start` + `count` roll, or a number in a list) or a
/// text from a list.
package enum Serial: Sendable, Equatable, CustomStringConvertible {
    case number(Int64)
    case text(String)

    /// The serial as `{serial}` without a format shows it.
    package var description: String {
        switch self {
        case let .number(value): String(value)
        case let .text(text): text
        }
    }

    /// As JSON: a number or a string.
    var json: JSONValue {
        switch self {
        case let .number(value): .int(value)
        case let .text(text): .string(text)
        }
    }
}

/// Where an encode job's serials come from: `start` + `count` (start, start+1, …), or a list.
/// Serials are handed out by index (0 ..< ``count``), so the journal names a serial by its index.
package enum SerialSource: Sendable, Equatable {
    /// `count` consecutive numbers from `start`.
    case range(start: Int64, count: Int)
    /// These serials, in order (no repeats).
    case list([Serial])

    /// Most serials in one job (a roll of labels is a few thousand).
    static let maximumCount = 1_000_000
    /// Longest serial text in a list.
    static let maximumTextLength = 64

    /// How many serials there are.
    package var count: Int {
        switch self {
        case let .range(_, count): count
        case let .list(serials): serials.count
        }
    }

    /// The serial at `index` (0 ..< ``count``).
    package func serial(at index: Int) -> Serial {
        switch self {
        case let .range(start, _): .number(start &+ Int64(index))
        case let .list(serials): serials[index]
        }
    }

    /// Parses `{"start": N, "count": N}` or `{"list": [...]}` (numbers or strings).
    package init(json: JSONValue) throws(CommandError) {
        guard let object = json.objectValue else { throw .invalid("serials", "an object: {\"start\":…,\"count\":…} or {\"list\":[…]}") }
        if let list = object["list"] {
            guard object.count == 1, let elements = list.arrayValue else {
                throw .invalid("serials.list", "a list of numbers or strings, alone in `serials`")
            }
            guard (1...Self.maximumCount).contains(elements.count) else {
                throw .invalid("serials.list", "1 to \(Self.maximumCount) serials, not \(elements.count)")
            }
            var serials: [Serial] = []
            var seen: Set<String> = []
            for (index, element) in elements.enumerated() {
                let serial: Serial
                if let number = element.intValue, case .int = element {
                    serial = .number(number)
                } else if let text = element.stringValue, (1...Self.maximumTextLength).contains(text.utf8.count) {
                    serial = .text(text)
                } else {
                    throw .invalid("serials.list[\(index)]", "a whole number or a string of 1 to \(Self.maximumTextLength) bytes")
                }
                guard seen.insert(serial.description).inserted else {
                    throw .invalid("serials.list[\(index)]", "'\(serial)' is in the list twice: a serial is issued once")
                }
                serials.append(serial)
            }
            self = .list(serials)
            return
        }
        let unknown = Set(object.keys).subtracting(["start", "count"])
        guard unknown.isEmpty else { throw .invalid("serials", "unknown field \(unknown.sorted().joined(separator: ", "))") }
        guard let start = object["start"]?.intValue, let count = object["count"]?.intValue else {
            throw .invalid("serials", "`start` and `count` are whole numbers (or give `list`)")
        }
        guard (1...Int64(Self.maximumCount)).contains(count) else {
            throw .invalid("serials.count", "1 to \(Self.maximumCount), not \(count)")
        }
        guard start >= 0, start <= Int64.max - count else { throw .invalid("serials.start", "0 or more, and start + count must fit") }
        self = .range(start: start, count: Int(count))
    }

    /// The `list` of a serial-list file (`nfcbridge encode --serial-list`, docs/tagging-station.md),
    /// for ``init(json:)``: one serial a line (LF or CR LF ends; a byte-order mark first, which
    /// spreadsheets write in "CSV UTF-8", is no part of the first serial), the white space around it
    /// trimmed, blank lines skipped; a line of digits alone that fits an `Int64` and reads back the
    /// same (no leading zero) is a number, any other line a text — `00042` stays `00042`, a serial
    /// other than `42`.
    package static func listFile(_ bytes: [UInt8]) -> JSONValue {
        .array(String(textFile: bytes).textLines().compactMap { rawLine -> JSONValue? in
            let line = rawLine.trimmingWhitespaceAndNewlines()
            if line.isEmpty { return nil }
            guard line.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int64(line), String(number) == line else {
                return .string(line)
            }
            return .int(number)
        })
    }

    /// As JSON (what ``init(json:)`` reads), for the journal.
    var json: JSONValue {
        switch self {
        case let .range(start, count): .object(["start": .int(start), "count": .int(Int64(count))])
        case let .list(serials): .object(["list": .array(serials.map(\.json))])
        }
    }
}
