/// The one table of dump export formats: what `nfcbridge export`, `nfcbridge dump --format` and the
/// MQTT `dump` command's `format` accept, with each format's file name, content type, kind (binary or
/// text), whether it takes `partial`, what a dump for it must read, and its writer.
///
/// The file names and content types of `json`, `flipper`, `pm3`, `mfd` and `hex` are the ones the MQTT
/// `dump` response has always carried (clients rely on them); the others follow Proxmark3's and
/// libnfc's own file names (docs/mqtt.md, "dump"; docs/formats.md).
public enum ExportFormat: String, Sendable, CaseIterable, Codable {
    /// Flipper Zero `.nfc` text.
    case flipper
    /// Proxmark3 MFU binary; for MIFARE Classic the `hf mf` dump (`hf-mf-<UID>-dump.bin`).
    case pm3
    /// Proxmark3 JSON dump (`FileType` `mfu`, `mfc v2`).
    case pm3json
    /// Proxmark3 MIFARE Classic key file (`hf-mf-<UID>-key.bin`).
    case pm3key
    /// Proxmark3 MIFARE Classic emulator file (`.eml`).
    case eml
    /// libnfc MFD: the Type 2 page image of `nfc-mfultralight`, the Classic block image of `nfc-mfclassic`.
    case mfd
    /// The 64-byte MFD `nfc-mfultralight` loads for tags without GET_VERSION (Ultralight, Ultralight C, NTAG203).
    case mfd64
    /// NFCCore's JSON export.
    case json
    /// NFCCore's hex listing.
    case hex
    /// The raw memory (``TagDump/exportBinary()``).
    case bin

    /// Every name, in table order, joined by `separator` (usage lines, error messages).
    public static func names(separator: String) -> String {
        allCases.map(\.rawValue).joined(separator: separator)
    }

    /// What follows the dump's base name (``TagDump/exportBaseName``) in the file name.
    public var fileSuffix: String {
        switch self {
        case .json: ".json"
        case .flipper: ".nfc"
        case .pm3: "-proxmark3.bin"
        case .pm3json: "-proxmark3.json"
        case .pm3key: "-key.bin"
        case .eml: ".eml"
        case .mfd: ".mfd"
        // Its own name: a client saving both MFD files of one tag must not overwrite one with the other.
        case .mfd64: "-64.mfd"
        case .hex: ".txt"
        case .bin: ".bin"
        }
    }

    /// The file's media type.
    public var contentType: String {
        switch self {
        case .json, .pm3json: "application/json"
        case .flipper, .eml, .hex: "text/plain"
        case .pm3, .pm3key, .mfd, .mfd64, .bin: "application/octet-stream"
        }
    }

    /// Binary formats (not written to a terminal by the CLI).
    public var isBinary: Bool { contentType == "application/octet-stream" }

    /// Formats with fixed places for pages or blocks, which refuse a partial dump with
    /// ``NFCError/partialDump(_:)`` unless `partial` (then they hold what was read up to the first page
    /// or block not read, and nothing after it).
    public var takesPartial: Bool {
        switch self {
        case .pm3, .pm3json, .eml, .mfd, .mfd64: true
        case .flipper, .pm3key, .json, .hex, .bin: false
        }
    }

    /// The formats that take `partial`, in words ("pm3, pm3json, eml, mfd and mfd64"), for messages.
    public static var partialFormatNames: String {
        listed(allCases.filter(\.takesPartial).map(\.rawValue), conjunction: "and")
    }

    /// What a dump written in this format needs read (a dump for it reads no more: no counters for mfd).
    public var dumpTarget: DumpTarget {
        switch self {
        case .flipper: .file(.flipper)
        case .pm3: .file(.proxmark3)
        case .pm3json: .file(.proxmark3JSON)
        case .mfd, .mfd64: .file(.mfd)
        case .json: .everything
        case .pm3key, .eml, .hex, .bin: .memory
        }
    }

    /// `dump` in this format. `compact` writes `json` without indentation (the other formats ignore it);
    /// `partial` lets the formats that ``takesPartial`` write a partial dump's pages or blocks up to the
    /// first one not read.
    /// - Throws: ``NFCError/partialDump(_:)`` for a partial dump without `partial`;
    ///   ``NFCError/unsupportedOperation(_:)`` when the format cannot hold the dump's family;
    ///   ``NFCError/malformedDump(_:)`` for pages or blocks the format cannot hold.
    public func render(_ dump: TagDump, compact: Bool = false, partial: Bool = false) throws -> [UInt8] {
        switch self {
        case .flipper: Array(try dump.exportFlipperNFC().utf8)
        case .pm3: try dump.exportProxmark3MFU(partial: partial)
        case .pm3json: Array(try dump.exportProxmark3JSON(partial: partial).utf8)
        case .pm3key: try dump.exportProxmark3Keys()
        case .eml: Array(try dump.exportProxmark3EML(partial: partial).utf8)
        case .mfd: try dump.exportLibNFCMFD(partial: partial)
        case .mfd64: try dump.exportLibNFCMFD64(partial: partial)
        case .json: Array(try dump.exportJSON(prettyPrinted: !compact).utf8)
        case .hex: Array(dump.exportHex().utf8)
        case .bin: dump.exportBinary()
        }
    }

    /// True when this format holds `dump`'s kind of data: it writes the dump, or refuses it only as
    /// partial (``NFCError/partialDump(_:)``, written with `partial`).
    public func holds(_ dump: TagDump) -> Bool {
        do {
            _ = try render(dump)
            return true
        } catch let error as NFCError {
            return error.errorCode == .partialDump
        } catch {
            return false
        }
    }

    /// The hint a refusal of `dump` in `refused` ends with, naming only formats that hold it
    /// (``holds(_:)``): the first of `preferred` that does ("use mfd"), else every format of the table
    /// other than `refused` that does ("use flipper, json, hex or bin"). It renders the dump in those
    /// formats, so a writer of them must not call it (only `mfd64`'s refusal does).
    public static func hint(for dump: TagDump, refused: ExportFormat, preferred: [ExportFormat] = []) -> String {
        if let format = preferred.first(where: { $0 != refused && $0.holds(dump) }) { return "use \(format.rawValue)" }
        let others = allCases.filter { $0 != refused && $0.holds(dump) }.map(\.rawValue)
        return "use " + listed(others, conjunction: "or")
    }

    /// "a", "a and b", "a, b and c".
    static func listed(_ names: [String], conjunction: String) -> String {
        guard let last = names.last else { return "" }
        let head = names.dropLast()
        return head.isEmpty ? last : head.joined(separator: ", ") + " \(conjunction) " + last
    }
}
