/// One row of a family's file-format table (``TagFamilyFiles/fileFormats``): a format it saves, loads or
/// detects, with save and load side by side — the load/save pairs of Flipper's `nfc_devices[]`. The
/// format's generic facts (file name, content type, partial rule, what a dump for it reads) are its
/// ``ExportFormat`` row; this row says what the family does with it.
///
/// Saving asks the rows of a format in order (the dump's own family first, then the registry's
/// order): the first row that ``takes`` the dump writes it or refuses it. Loading asks each row with a
/// ``load`` in registry order until one reads the bytes; detecting a binary image asks each ``detect``.
public struct FileFormatRow: Sendable {
    /// The format of the row.
    public let format: ExportFormat
    /// True when this row writes (or refuses) `dump` in ``format``; other dumps go to the next row.
    let takes: @Sendable (TagDump) -> Bool
    /// True when the dump has what the file holds (pages, Classic blocks, a DESFire walk): the save
    /// writes it, or refuses it only as partial or malformed. The refusal hints read this; they never
    /// write a file to find out.
    let holds: @Sendable (TagDump) -> Bool
    /// Writes the dump; nil for a row that only loads.
    let save: (@Sendable (TagDump, FileSaveOptions) throws -> [UInt8])?
    /// Reads the bytes when they are this family's file of ``format``; nil when they are not (the next
    /// row is asked). Nil for a row that only saves.
    let load: (@Sendable ([UInt8]) throws -> TagDump?)?
    /// True when a binary image (or text that is none of JSON and Flipper) is this family's file of
    /// ``format`` (content sniffing for ``DumpImporter/detectFormat(_:)``); nil when the row does not detect.
    let detect: (@Sendable ([UInt8]) -> Bool)?

    /// A row that saves and may load and detect. `takes` defaults to every dump (the last row of the
    /// registry for a format), `holds` to every dump the row takes.
    public init(_ format: ExportFormat, takes: @escaping @Sendable (TagDump) -> Bool = { _ in true },
                holds: @escaping @Sendable (TagDump) -> Bool = { _ in true },
                save: (@Sendable (TagDump, FileSaveOptions) throws -> [UInt8])?,
                load: (@Sendable ([UInt8]) throws -> TagDump?)? = nil,
                detect: (@Sendable ([UInt8]) -> Bool)? = nil) {
        self.format = format
        self.takes = takes
        self.holds = holds
        self.save = save
        self.load = load
        self.detect = detect
    }

    /// A row that takes the dumps of `takes` in `format` only to refuse them with `refusal` (a format
    /// that cannot hold the family's data, worded by the family); it holds none of them.
    public static func refusing(_ format: ExportFormat, takes: @escaping @Sendable (TagDump) -> Bool = { _ in true },
                                with refusal: @escaping @Sendable (TagDump) -> NFCError) -> FileFormatRow {
        FileFormatRow(format, takes: takes, holds: { _ in false }, save: { dump, _ in throw refusal(dump) })
    }
}

extension FileFormatRow {
    /// `bytes` as UTF-8 text, for the load of a text format (Flipper `.nfc`, `.eml`), without a
    /// leading byte-order mark (a file saved by a Windows editor).
    /// - Throws: ``NFCError/malformedDump(_:)`` when they are not UTF-8.
    static func utf8Text(_ bytes: [UInt8]) throws -> String {
        guard let text = String(validating: bytes.droppingByteOrderMark, as: UTF8.self) else { throw NFCError.malformedDump("not UTF-8 text") }
        return text
    }
}

/// What a save is asked for besides the dump.
public struct FileSaveOptions: Sendable {
    /// Write a partial dump's pages or blocks up to the first one not read (formats that
    /// ``ExportFormat/takesPartial``); without it such a dump is refused with ``NFCError/partialDump(_:)``.
    public var partial: Bool
    /// Write JSON without indentation (the other formats ignore it).
    public var compact: Bool

    /// Options of one save; by default a whole dump, indented.
    public init(partial: Bool = false, compact: Bool = false) {
        self.partial = partial
        self.compact = compact
    }
}
