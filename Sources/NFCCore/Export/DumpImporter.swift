import FoundationEssentials

/// Reads a dump file in any supported format, telling the format from the content.
public enum DumpImporter {
    /// The largest dump file read (4 MiB): the largest real dump (a MIFARE Classic 4K or DESFire dump
    /// as pretty-printed JSON) is a few hundred KiB. Longer inputs answer ``NFCError/malformedDump(_:)``.
    public static let maxFileSize = 4 << 20

    /// The format of `bytes`: JSON when it starts with `{` (Proxmark3 JSON when its head names
    /// `"Created"` … `proxmark3` or a `"FileType"`), Flipper when it starts with `Filetype:`, Proxmark3
    /// `.eml` for text of 32-digit hex lines,
    /// MFD for a MIFARE Classic MFD size (320, 1024, 2048, 4096 bytes: no MFU file has these sizes),
    /// Proxmark3 when a 56- or 48-byte MFU header precedes valid UID check bytes, MFD for a page image
    /// of a Type 2 MFD size, Proxmark3 (plain) for other page images with valid UID check bytes.
    /// Nil when nothing fits.
    public static func detectFormat(_ bytes: [UInt8]) -> ExportFormat? {
        switch FileContent(bytes) {
        case .json: return .json
        case .proxmark3JSON: return .pm3json
        case .flipper: return .flipper
        case .otherText, .binary:
            // Binary images: the rows of each family's file formats say whether they know the bytes
            // (registry order, then the family's row order).
            return TagFamilies.allFiles.lazy.flatMap(\.fileFormats).first { $0.detect?(bytes) == true }?.format
        }
    }

    /// Reads `bytes` as `format`, or as the detected format when `format` is nil: the first row of the
    /// file-format table with a load for the format that reads the bytes (json by the generic row, the
    /// others by the families in registry order).
    ///
    /// Whatever the format, the dump must fit the product's memory (page and block numbers and counts
    /// from its memory map, sizes): a file naming page 2^31 is refused here, not written out as 8 GiB.
    /// A file that is plainly in another format than the one named (JSON or Flipper text named `pm3`
    /// or `mfd`, a binary image named `json`, a Proxmark3 JSON dump) is refused naming what it looks like.
    /// - Throws: ``NFCError/malformedDump(_:)`` when the format is not recognised, the file is not in the
    ///   named format, is larger than ``maxFileSize``, is not well formed or does not fit the memory;
    ///   ``NFCError/unsupportedOperation(_:)`` for files of a recognised format that hold something
    ///   other than a Type 2 or MIFARE Classic dump (e.g. a Flipper DESFire file), and for a format
    ///   no row reads (``ExportFormat/readable``: pm3key, mfd64, hex, bin).
    ///   MIFARE Classic files (Flipper `Device type: Mifare Classic`, MFD and Proxmark3 `hf mf` dumps
    ///   of a Classic size) go to the Classic importers.
    /// `fileName` (the file's name, when known) is used only to tell a Proxmark3 MIFARE Classic key
    /// file (by its `-key.bin` name or, with no format named, its content), which is refused (``ProxmarkClassicFormat/keyFileRefusal(_:fileName:formatNamed:)``).
    public static func importDump(_ bytes: [UInt8], format: ExportFormat? = nil, fileName: String? = nil) throws -> TagDump {
        if let format, !ExportFormat.readable.contains(format) {
            throw NFCError.unsupportedOperation(
                "\(format.rawValue) files are written, not read: read \(ExportFormat.listed(ExportFormat.readable.map(\.rawValue), conjunction: "or"))")
        }
        guard bytes.count <= maxFileSize else {
            throw NFCError.malformedDump("\(bytes.count) bytes; no dump file is larger than \(maxFileSize) bytes")
        }
        let content = FileContent(bytes)
        let formatNamed = format != nil
        if let format, let mismatch = content.mismatch(named: format) { throw NFCError.malformedDump(mismatch) }
        guard let format = format ?? detectFormat(bytes) else {
            throw NFCError.malformedDump(
                "not a JSON, Flipper .nfc, Proxmark3 (MFU, hf mf, JSON, .eml) or libnfc MFD dump (\(bytes.count) bytes)")
        }
        // Key files are binary images: only what would be read as one (MFD or Proxmark3 binary) is checked.
        if [.mfd, .pm3].contains(format),
            let refusal = ProxmarkClassicFormat.keyFileRefusal(bytes, fileName: fileName, formatNamed: formatNamed)
        {
            throw NFCError.malformedDump(refusal)
        }
        let dump = try importUnchecked(bytes, format: format)
        try checkBounds(dump)
        return dump
    }

    private static func importUnchecked(_ bytes: [UInt8], format: ExportFormat) throws -> TagDump {
        // The first row (generic, then registry order) whose load claims the bytes reads them.
        for row in FileFormatLookup.rows(of: format) {
            if let load = row.load, let dump = try load(bytes) { return dump }
        }
        if format == .pm3json {
            // A well-formed Proxmark3 JSON file of a type no family reads (iclass, hitag, mfc v3, …).
            let fileType = try ProxmarkJSON.Document(bytes).fileType
            throw NFCError.unsupportedOperation(
                "Proxmark3 JSON files of FileType '\(fileType.prefix(40))' are not read (NFCBridge reads mfu and mfc v2)")
        }
        throw NFCError.malformedDump("not a \(format.rawValue) dump (\(bytes.count) bytes)")
    }

    /// The most pages, blocks or files a dump of any family holds, and the highest page or block
    /// number (16-bit block numbers: FeliCa block list elements, ISO 15693 extended addressing).
    static let maxUnits = 65536
    /// The most bytes in one page or block (ISO 15693 blocks are up to 32 bytes, FeliCa 16).
    static let maxUnitSize = 256

    /// Throws ``NFCError/malformedDump(_:)`` unless `dump` fits: the family's memory map (Type 2 page
    /// numbers, MIFARE Classic block numbers: ``TagFamilyFiles/checkFileBounds(_:)``), and for every family at most
    /// ``maxUnits`` pages, blocks and files, numbered 0 ..< ``maxUnits``, each page or block at most
    /// ``maxUnitSize`` bytes.
    public static func checkBounds(_ dump: TagDump) throws {
        // The family's memory first: its message names the product.
        for family in TagFamilies.allFiles { try family.checkFileBounds(dump) }
        for (name, count) in [("pages", dump.pages.count), ("blocks", dump.blocks.count), ("files", dump.files.count)]
        where count > maxUnits {
            throw NFCError.malformedDump("\(count) \(name); no tag holds more than \(maxUnits)")
        }
        for (name, numbers) in [("page", dump.pages.map(\.number)), ("block", dump.blocks.map(\.number))] {
            // A number twice: every export refuses it, so the file is refused where it enters.
            var seen = Set<Int>()
            for number in numbers where !seen.insert(number).inserted {
                throw NFCError.malformedDump("\(name) \(number) appears twice")
            }
        }
        let units = dump.pages.lazy.map { ("page", $0.number, $0.data.count) }
            + dump.blocks.lazy.map { ("block", $0.number, $0.data.count) }
        for (name, number, size) in units {
            guard (0..<maxUnits).contains(number) else {
                throw NFCError.malformedDump("\(name) number \(number) is outside 0–\(maxUnits - 1)")
            }
            guard size <= maxUnitSize else {
                throw NFCError.malformedDump("\(name) \(number) has \(size) bytes; no tag has pages or blocks over \(maxUnitSize)")
            }
        }
    }
}

/// What a file's first bytes say it is, before any format reads it (telling a file named in the
/// wrong format from a broken one).
enum FileContent: Equatable {
    /// JSON text (an object).
    case json
    /// Proxmark3's own JSON dump (`"Created": "proxmark3"`, `"FileType"`), which is not our JSON.
    case proxmark3JSON
    /// Flipper `.nfc` text (`Filetype:` first).
    case flipper
    /// Other UTF-8 text without control characters.
    case otherText
    /// Anything else: a binary image.
    case binary

    /// What a format's files look like (``ExportFormat`` `facts.content`): the contents its reader is
    /// handed, when a format is named.
    enum Kind {
        /// JSON text (``FileContent/json``).
        case json
        /// Proxmark3's JSON (``FileContent/proxmark3JSON``).
        case proxmark3JSON
        /// Flipper `.nfc` text.
        case flipper
        /// Other text (``FileContent/otherText``).
        case text
        /// A page or block image: anything but JSON or Flipper text (an image of printable bytes is
        /// possible, so text is not refused).
        case image

        /// True when `content` may be a file of this kind.
        func admits(_ content: FileContent) -> Bool {
            switch self {
            case .json: content == .json
            case .proxmark3JSON: content == .proxmark3JSON
            case .flipper: content == .flipper
            case .text: content == .otherText
            case .image: content != .json && content != .proxmark3JSON && content != .flipper
            }
        }
    }

    init(_ bytes: [UInt8]) {
        // Skip a UTF-8 byte-order mark and leading white space of text formats.
        let text = bytes.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if text.first == UInt8(ascii: "{") {
            // Proxmark3 writes `"Created": "proxmark3"` and `"FileType"` first (client/src/fileutils.c
            // saveFileJSONex); look at the head only.
            let head = String(decoding: text.prefix(512), as: UTF8.self)
            self = head.contains("\"Created\"") && head.contains("proxmark3") || head.contains("\"FileType\"")
                ? .proxmark3JSON : .json
        } else if text.starts(with: Array("Filetype:".utf8)) {
            self = .flipper
        } else if !bytes.isEmpty, String(validating: bytes, as: UTF8.self) != nil,
            bytes.allSatisfy({ $0 >= 0x20 || [0x09, 0x0A, 0x0D].contains($0) })
        {
            self = .otherText
        } else {
            self = .binary
        }
    }

    /// Why bytes of this content are not `format`; nil when they may be (the format's reader decides).
    func mismatch(named format: ExportFormat) -> String? {
        let what: String
        switch self {
        case .json: what = "a JSON dump"
        case .proxmark3JSON: what = "a Proxmark3 JSON dump"
        case .flipper: what = "a Flipper .nfc file"
        case .otherText: what = "text"
        case .binary: what = "binary data"
        }
        let facts = format.facts
        let fits = facts.content?.admits(self) ?? false
        return fits ? nil : "this is \(what), not \(facts.importName ?? format.rawValue) (\(format.rawValue))"
    }
}
