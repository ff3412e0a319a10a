import FoundationEssentials

/// Reads a dump file in any supported format, telling the format from the content.
public enum DumpImporter {
    /// The format of `bytes`: JSON when it starts with `{`, Flipper when it starts with `Filetype:`,
    /// MFD for a MIFARE Classic MFD size (320, 1024, 2048, 4096 bytes: no MFU file has these sizes),
    /// Proxmark3 when a 56- or 48-byte MFU header precedes valid UID check bytes, MFD for a page image
    /// of a Type 2 MFD size, Proxmark3 (plain) for other page images with valid UID check bytes.
    /// Nil when nothing fits.
    public static func detectFormat(_ bytes: [UInt8]) -> DumpFormat? {
        // Skip a UTF-8 byte-order mark and leading white space of text formats.
        let text = bytes.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if text.first == UInt8(ascii: "{") { return .json }
        if text.starts(with: Array("Filetype:".utf8)) { return .flipper }
        // Binary images: each family's file formats say whether they know the bytes (registry order).
        return TagFamilies.all.lazy.compactMap { $0.detectFormat(bytes) }.first
    }

    /// Reads `bytes` as `format`, or as the detected format when `format` is nil.
    /// - Throws: ``NFCError/malformedDump(_:)`` when the format is not recognised or the file is not
    ///   well formed; ``NFCError/unsupportedOperation(_:)`` for files of a recognised format that hold
    ///   something other than a Type 2 or MIFARE Classic dump (e.g. a Flipper DESFire file).
    ///   MIFARE Classic files (Flipper `Device type: Mifare Classic`, MFD and Proxmark3 `hf mf` dumps
    ///   of a Classic size) go to the Classic importers.
    public static func importDump(_ bytes: [UInt8], format: DumpFormat? = nil) throws -> TagDump {
        guard let format = format ?? detectFormat(bytes) else {
            throw NFCError.malformedDump("not a JSON, Flipper .nfc, Proxmark3 MFU or libnfc MFD dump (\(bytes.count) bytes)")
        }
        if format == .json { return try TagDump.importJSON(bytes) }
        // The first family (registry order) whose file formats claim the bytes reads them.
        for family in TagFamilies.all {
            if let dump = try family.importFile(bytes, format: format) { return dump }
        }
        throw NFCError.malformedDump("not a \(format.rawValue) dump (\(bytes.count) bytes)")
    }
}
