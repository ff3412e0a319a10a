import FoundationEssentials

// The Flipper Zero `.nfc` envelope every family's Flipper file shares: the header, the ISO 14443-3A
// keys and the `Key: value` reader. The per-family parts live in the family folders
// (Families/Type2/Formats, Families/Classic/Formats).

/// Constants of the Flipper `.nfc` envelope (flipperzero-firmware `lib/nfc/nfc_device.c`).
enum FlipperNFCFormat {
    static let filetype = "Flipper NFC device"
    /// File format version written (4 = "unified": Device type is a protocol name).
    static let version = 4

    /// The UID lengths an NFC-A file holds: ISO/IEC 14443-3 single, double and triple size, the only
    /// ones Flipper's loader takes (flipperzero-firmware `lib/nfc/protocols/iso14443_3a/iso14443_3a.c`,
    /// `iso14443_3a_set_uid`). Both directions check them: ``header(deviceType:uid:atqa:sak:)`` and
    /// ``FlipperKeyValues/iso14443A(fileVersion:)``.
    static let uidLengths = [4, 7, 10]

    /// The file header and the ISO 14443-3A keys every NFC-A file opens with (`nfc_device_save`,
    /// `iso14443_3a_save`); the export-side twin of ``FlipperKeyValues/iso14443A(fileVersion:)``.
    /// Version 3 and later store ATQA most significant byte first, as CardInfo holds it. Every NFC-A
    /// exporter (Type 2, MIFARE Classic, DESFire) writes its header here, so none writes a UID that
    /// Flipper and our own import refuse.
    /// - Throws: ``NFCError/malformedDump(_:)`` for a UID that is not 4, 7 or 10 bytes (``uidLengths``).
    static func header(deviceType: String, uid: [UInt8], atqa: [UInt8], sak: UInt8) throws(NFCError) -> [String] {
        guard uidLengths.contains(uid.count) else {
            throw .malformedDump(
                "a Flipper .nfc file needs a UID of 4, 7 or 10 bytes (the dump has \(uid.count)), as Flipper's loader does: use json")
        }
        return [
            "Filetype: \(filetype)",
            "Version: \(version)",
            "Device type: \(deviceType)",
            "UID: \(uid.spacedHexString)",
            "ATQA: \(atqa.spacedHexString)",
            "SAK: \(sak.hexString)",
        ]
    }
}

/// The `Key: value` lines of a Flipper file (`#` comments and blank lines skipped; the first of
/// repeated keys wins, as Flipper's forward-reading loader would find it).
struct FlipperKeyValues {
    private var values: [String: String] = [:]

    init(_ text: String) {
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingSpaces()
            guard !line.isEmpty, !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon]).trimmingSpaces()
            let value = String(line[line.index(after: colon)...]).trimmingSpaces()
            if values[key] == nil { values[key] = value }
        }
    }

    subscript(key: String) -> String? { values[key] }

    /// Hex bytes of a required key (`count` of them when given).
    func bytes(_ key: String, count: Int?) throws -> [UInt8] {
        guard let text = values[key] else { throw NFCError.malformedDump("missing \(key)") }
        guard let bytes = [UInt8](hex: text), count == nil || bytes.count == count else {
            throw NFCError.malformedDump("\(key) '\(text)' is not \(count.map { "\($0) hex bytes" } ?? "hex")")
        }
        return bytes
    }

    /// Hex bytes of an optional key.
    func optionalBytes(_ key: String, count: Int) throws -> [UInt8]? {
        values[key] == nil ? nil : try bytes(key, count: count)
    }

    /// The file format version, after checking the file type; Versions 2–4 are read.
    func fileVersion() throws -> Int {
        guard self["Filetype"] == FlipperNFCFormat.filetype else {
            throw NFCError.unsupportedOperation("Unsupported Flipper NFC file format")
        }
        guard let text = self["Version"], let version = Int(text), (2...4).contains(version) else {
            throw NFCError.unsupportedOperation("Unsupported Flipper NFC file format version \(self["Version"] ?? "(none)")")
        }
        return version
    }

    /// The ISO 14443-3A keys every NFC-A file has: UID (4, 7 or 10 bytes, required), ATQA (most
    /// significant byte first; Version 2 files store it LSB first, flipperzero-firmware
    /// NFC_LSB_ATQA_FORMAT_VERSION) and SAK.
    func iso14443A(fileVersion: Int) throws -> (uid: [UInt8], atqa: [UInt8]?, sak: UInt8?) {
        let uid = try bytes("UID", count: nil)
        guard FlipperNFCFormat.uidLengths.contains(uid.count) else { throw NFCError.malformedDump("UID has \(uid.count) bytes") }
        var atqa = try optionalBytes("ATQA", count: 2)
        if fileVersion == 2, let lsbFirst = atqa { atqa = lsbFirst.reversed() }
        return (uid, atqa, try optionalBytes("SAK", count: 1)?.first)
    }

    /// `Data format version` of the protocol part; 0 when the line is missing (the oldest files).
    func dataFormatVersion() throws -> Int {
        guard let text = self["Data format version"] else { return 0 }
        guard let value = Int(text), value >= 0 else { throw NFCError.malformedDump("Data format version '\(text)'") }
        return value
    }
}
