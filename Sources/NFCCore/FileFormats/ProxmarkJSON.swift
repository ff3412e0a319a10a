import FoundationEssentials

/// Proxmark3's JSON dump files (RRG client, `client/src/fileutils.c`: `prepareJSON` writes them,
/// `loadFileJSONex` reads them): an object whose `Created` is `proxmark3`, a `FileType` naming the
/// layout (`mfu` for Type 2, `mfc v2` for MIFARE Classic), a `Card` object of hex strings and a
/// `blocks` object mapping `"0"`, `"1"`, … to each page or block in uppercase hex.
///
/// The loader reads `blocks` from `"0"` up to the first number missing and ignores every other key
/// it does not know; the writer is jansson's `json_dump_file` with `JSON_INDENT(2)`: keys in the order
/// they were set, two spaces per level, `"key": value`, no newline after the closing brace.
enum ProxmarkJSON {
    /// `Created` of every file the client writes.
    static let creator = "proxmark3"

    /// A JSON value of the files: a string, or an object whose keys keep their order.
    indirect enum Value {
        case string(String)
        case object([(String, Value)])
    }

    /// The file text of `root` (an object), laid out as the client writes it.
    static func text(_ root: [(String, Value)]) -> String {
        var output = ""
        write(.object(root), indent: 0, into: &output)
        return output
    }

    private static func write(_ value: Value, indent: Int, into output: inout String) {
        switch value {
        case .string(let string):
            output += quoted(string)
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            let inner = String(repeating: " ", count: indent + 2)
            output += "{\n"
            for (index, member) in members.enumerated() {
                output += inner + quoted(member.0) + ": "
                write(member.1, indent: indent + 2, into: &output)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    /// `string` as a JSON string (the files hold hex and plain words; quotes, backslashes and control
    /// characters are escaped anyway).
    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `blocks` as the file's `blocks` object: `"0"`, `"1"`, … in order, uppercase hex.
    static func blocksObject(_ blocks: [[UInt8]]) -> Value {
        .object(blocks.enumerated().map { (String($0.offset), .string($0.element.hexString)) })
    }

    /// What a Proxmark3 JSON dump holds that NFCBridge reads: the file type, the `Card` strings and the
    /// `blocks` in order (the other keys — `SectorKeys`, which repeats the trailers — are ignored, as
    /// the client's loader ignores them).
    struct Document: Decodable {
        var created: String?
        var fileType: String
        var card: [String: String]
        var blocks: [String: String]

        enum CodingKeys: String, CodingKey {
            case created = "Created", fileType = "FileType", card = "Card", blocks
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            created = try container.decodeIfPresent(String.self, forKey: .created)
            fileType = try container.decodeIfPresent(String.self, forKey: .fileType) ?? ""
            card = try container.decodeIfPresent([String: String].self, forKey: .card) ?? [:]
            blocks = try container.decodeIfPresent([String: String].self, forKey: .blocks) ?? [:]
        }

        /// Reads `bytes`.
        /// - Throws: ``NFCError/malformedDump(_:)`` when they are not a JSON object with these keys.
        init(_ bytes: [UInt8]) throws {
            do {
                self = try JSONDecoder().decode(Document.self, from: Data(bytes))
            } catch {
                throw NFCError.malformedDump("Proxmark3 JSON: \(FamilyJSON.describe(error))")
            }
        }

        /// The `Card` value `key` as bytes: nil when absent; exactly `length` bytes when given.
        /// - Throws: ``NFCError/malformedDump(_:)`` for a value that is not hex of that length.
        func card(_ key: String, length: Int? = nil) throws -> [UInt8]? {
            guard let text = card[key] else { return nil }
            guard let bytes = [UInt8](hex: text) else {
                throw NFCError.malformedDump("Proxmark3 JSON: Card.\(key) '\(text.prefix(40))' is not hex")
            }
            if let length, bytes.count != length {
                throw NFCError.malformedDump("Proxmark3 JSON: Card.\(key) has \(bytes.count) bytes, not \(length)")
            }
            return bytes
        }

        /// The blocks `"0"`, `"1"`, … each of `size` bytes, at most `limit` of them. The client stops at
        /// the first number missing; a file with blocks after such a gap, another key in `blocks`, more
        /// than `limit` blocks or a block of another size is refused rather than read in part.
        /// - Throws: ``NFCError/malformedDump(_:)`` naming the block.
        func orderedBlocks(size: Int, limit: Int, unit: String) throws -> [[UInt8]] {
            var result: [[UInt8]] = []
            while let text = blocks[String(result.count)] {
                guard result.count < limit else {
                    throw NFCError.malformedDump("Proxmark3 JSON: more than \(limit) \(unit)s (the most this file type holds)")
                }
                guard let bytes = [UInt8](hex: text), bytes.count == size else {
                    throw NFCError.malformedDump(
                        "Proxmark3 JSON: \(unit) \(result.count) '\(text.prefix(40))' is not \(size) bytes of hex")
                }
                result.append(bytes)
            }
            if let stray = blocks.keys.first(where: { Int($0).map { !(0..<result.count).contains($0) } ?? true }) {
                let read = result.isEmpty ? "there is no \(unit) 0" : "it does not follow \(unit)s 0–\(result.count - 1)"
                throw NFCError.malformedDump(
                    "Proxmark3 JSON: blocks key '\(stray.prefix(40))': \(read) "
                        + "(Proxmark3 reads \(unit)s from 0 up to the first one missing)")
            }
            return result
        }
    }
}
