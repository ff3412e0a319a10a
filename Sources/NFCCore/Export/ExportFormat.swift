/// The one list of dump file formats: what `nfcbridge export`, `nfcbridge import`, `nfcbridge dump
/// --format` and the MQTT `dump` command's `format` accept. Each format's generic facts (file name,
/// content type, partial rule, what a dump for it reads, what its content looks like) are one row of
/// ``facts``; who saves, loads and detects it are the rows the families register
/// (``TagFamilyFiles/fileFormats``) and the generic rows of ``GenericFileFormats`` (json, hex, bin), which
/// ``render(_:compact:partial:)``, ``holds(_:)`` and ``DumpImporter`` look up.
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

    /// One row of the format table: the facts of a format that do not depend on the family.
    struct Facts {
        /// What follows the dump's base name in the file name.
        var fileSuffix: String
        /// The file's media type.
        var contentType: String
        /// Whether a partial dump is written with `partial` (fixed places for pages or blocks).
        var takesPartial: Bool
        /// What a dump for this format reads.
        var dumpTarget: DumpTarget
        /// The files in words, for a refusal ("Proxmark3 JSON" files hold …).
        var filesName: String
        /// What a file of this format looks like before it is read; nil for formats that are not read.
        var content: FileContent.Kind?
        /// The format in words for an import message ("a Proxmark3 MFU binary"); nil when not read.
        var importName: String?
    }

    /// The row of this format.
    var facts: Facts {
        switch self {
        case .flipper:
            Facts(fileSuffix: ".nfc", contentType: "text/plain", takesPartial: false, dumpTarget: .file(.flipper),
                  filesName: "Flipper Zero .nfc", content: .flipper, importName: "a Flipper .nfc file")
        case .pm3:
            Facts(fileSuffix: "-proxmark3.bin", contentType: "application/octet-stream", takesPartial: true,
                  dumpTarget: .file(.pm3), filesName: "Proxmark3 binary", content: .image,
                  importName: "a Proxmark3 MFU binary")
        case .pm3json:
            Facts(fileSuffix: "-proxmark3.json", contentType: "application/json", takesPartial: true,
                  dumpTarget: .file(.pm3json), filesName: "Proxmark3 JSON", content: .proxmark3JSON,
                  importName: "a Proxmark3 JSON dump")
        case .pm3key:
            Facts(fileSuffix: "-key.bin", contentType: "application/octet-stream", takesPartial: false,
                  dumpTarget: .memory, filesName: "Proxmark3 key", content: nil, importName: nil)
        case .eml:
            Facts(fileSuffix: ".eml", contentType: "text/plain", takesPartial: true, dumpTarget: .memory,
                  filesName: "Proxmark3 .eml", content: .text, importName: "a Proxmark3 .eml file")
        case .mfd:
            Facts(fileSuffix: ".mfd", contentType: "application/octet-stream", takesPartial: true,
                  dumpTarget: .file(.mfd), filesName: "libnfc MFD", content: .image, importName: "a libnfc MFD file")
        case .mfd64:
            // Its own name: a client saving both MFD files of one tag must not overwrite one with the other.
            Facts(fileSuffix: "-64.mfd", contentType: "application/octet-stream", takesPartial: true,
                  dumpTarget: .file(.mfd), filesName: "64-byte libnfc MFD", content: nil, importName: nil)
        case .json:
            Facts(fileSuffix: ".json", contentType: "application/json", takesPartial: false, dumpTarget: .everything,
                  filesName: "JSON", content: .json, importName: "a JSON dump")
        case .hex:
            Facts(fileSuffix: ".txt", contentType: "text/plain", takesPartial: false, dumpTarget: .memory,
                  filesName: "hex listing", content: nil, importName: nil)
        case .bin:
            Facts(fileSuffix: ".bin", contentType: "application/octet-stream", takesPartial: false,
                  dumpTarget: .memory, filesName: "raw binary", content: nil, importName: nil)
        }
    }

    /// Every name, in table order, joined by `separator` (usage lines, error messages).
    public static func names(separator: String) -> String {
        allCases.map(\.rawValue).joined(separator: separator)
    }

    /// What follows the dump's base name (``TagDump/exportBaseName``) in the file name.
    public var fileSuffix: String { facts.fileSuffix }

    /// The file's media type.
    public var contentType: String { facts.contentType }

    /// Binary formats (not written to a terminal by the CLI).
    public var isBinary: Bool { contentType == "application/octet-stream" }

    /// Formats with fixed places for pages or blocks, which refuse a partial dump with
    /// ``NFCError/partialDump(_:)`` unless `partial` (then they hold what was read up to the first page
    /// or block not read, and nothing after it).
    public var takesPartial: Bool { facts.takesPartial }

    /// The formats that take `partial`, in words ("pm3, pm3json, eml, mfd and mfd64"), for messages.
    public static var partialFormatNames: String {
        listed(allCases.filter(\.takesPartial).map(\.rawValue), conjunction: "and")
    }

    /// What a dump written in this format needs read (a dump for it reads no more: no counters for mfd).
    public var dumpTarget: DumpTarget { facts.dumpTarget }

    /// The formats `nfcbridge import` reads (a family or the generic rows register a load), in table order.
    public static var readable: [ExportFormat] {
        allCases.filter { format in FileFormatLookup.rows(of: format).contains { $0.load != nil } }
    }

    /// `dump` in this format, written by the first row of the table that takes it (the dump's own
    /// family first, then the families in registry order; json, hex and bin by the generic rows).
    /// `compact` writes `json` without indentation (the other formats ignore it); `partial` lets the
    /// formats that ``takesPartial`` write a partial dump's pages or blocks up to the first one not read.
    /// - Throws: ``NFCError/partialDump(_:)`` for a partial dump without `partial`;
    ///   ``NFCError/unsupportedOperation(_:)`` when the format cannot hold the dump's family;
    ///   ``NFCError/malformedDump(_:)`` for pages or blocks the format cannot hold.
    public func render(_ dump: TagDump, compact: Bool = false, partial: Bool = false) throws -> [UInt8] {
        guard let row = FileFormatLookup.saver(of: self, for: dump), let save = row.save else {
            throw NFCError.unsupportedOperation("No tag family writes \(rawValue) files for \(dump.cardInfo.type)")
        }
        return try save(dump, FileSaveOptions(partial: partial, compact: compact))
    }

    /// True when this format holds `dump`'s kind of data: the row that takes the dump says so
    /// (``FileFormatRow/holds``) — nothing is written to find out. A format holding the dump writes it,
    /// or refuses it only as partial (``NFCError/partialDump(_:)``, written with `partial`), or as
    /// malformed (pages or blocks the file cannot lay out).
    public func holds(_ dump: TagDump) -> Bool {
        FileFormatLookup.saver(of: self, for: dump)?.holds(dump) ?? false
    }

    /// The hint a refusal of `dump` in `refused` ends with, naming only formats that hold it
    /// (``holds(_:)``, a look-up in the table): the first of `preferred` that does ("use mfd"), else
    /// every format of the table other than `refused` that does ("use flipper, json, hex or bin").
    public static func hint(for dump: TagDump, refused: ExportFormat, preferred: [ExportFormat] = []) -> String {
        if let format = preferred.first(where: { $0 != refused && $0.holds(dump) }) { return "use \(format.rawValue)" }
        let others = allCases.filter { $0 != refused && $0.holds(dump) }.map(\.rawValue)
        return "use " + listed(others, conjunction: "or")
    }

    /// The ``NFCError/unsupportedOperation(_:)`` of a format that cannot hold `dump`'s family: the files
    /// hold `what`; the message names the family of the dump.
    func cannotHold(_ dump: TagDump, what: String) -> NFCError {
        .unsupportedOperation(
            "\(facts.filesName) files hold \(what); they cannot hold \(dump.cardInfo.type.family.description) dumps: use json")
    }

    /// "a", "a and b", "a, b and c".
    static func listed(_ names: [String], conjunction: String) -> String {
        guard let last = names.last else { return "" }
        let head = names.dropLast()
        return head.isEmpty ? last : head.joined(separator: ", ") + " \(conjunction) " + last
    }
}
