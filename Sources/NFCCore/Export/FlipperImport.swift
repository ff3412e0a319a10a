import Foundation

/// Flipper Zero `.nfc` import for NTAG/Ultralight files: file Version 4 with data format 2 (current),
/// Version 3 with data format 1 (the product in `Device type`, e.g. `Device type: NTAG215`), files
/// without a data-format line, and Version 2 files (ATQA stored LSB first).
extension TagDump {
    /// Reads a Flipper Zero `.nfc` file holding an NTAG/Ultralight dump.
    ///
    /// Pages from `Pages read` on are treated as unread, as Flipper does. The UID comes from pages 0
    /// and 1 when they disagree with the `UID:` line (Flipper's own format document has such an example).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for other Flipper files (other protocols, versions);
    ///   ``NFCError/malformedDump(_:)`` when a required key is missing or a value is not well formed.
    public static func importFlipperNFC(_ text: String) throws -> TagDump {
        let file = FlipperKeyValues(text)
        let fileVersion = try file.fileVersion()
        guard let deviceType = file["Device type"],
            deviceType == FlipperNFCFormat.deviceType || FlipperUltralightType.row(named: deviceType) != nil
        else {
            throw NFCError.unsupportedOperation("Unsupported Flipper NFC file format")
        }
        let (uidLine, atqa, sak) = try file.iso14443A(fileVersion: fileVersion)
        let dataFormat = try file.dataFormatVersion()
        var row: FlipperUltralightType.Row?
        if dataFormat >= 2 {
            guard let name = file["NTAG/Ultralight type"] else { throw NFCError.malformedDump("missing NTAG/Ultralight type") }
            guard let named = FlipperUltralightType.row(named: name) else {
                throw NFCError.unsupportedOperation("Unsupported NTAG/Ultralight type '\(name)'")
            }
            row = named
        } else {
            row = FlipperUltralightType.row(named: deviceType)
        }

        let signature = try file.optionalBytes("Signature", count: 32)
        let version = try file.optionalBytes("Mifare version", count: 8)
        var counters: [UInt32?] = []
        var tearing: [UInt8?] = []
        for index in 0..<3 {
            counters.append(try file["Counter \(index)"].map { text -> UInt32 in
                guard let value = UInt32(text) else { throw NFCError.malformedDump("Counter \(index) '\(text)'") }
                return value
            })
            tearing.append(try file.optionalBytes("Tearing \(index)", count: 1)?.first)
        }

        guard let totalText = file["Pages total"] else { throw NFCError.malformedDump("missing Pages total") }
        guard let total = Int(totalText), total > 0, total <= FlipperNFCFormat.maxPages else {
            throw NFCError.malformedDump("Pages total '\(totalText)'")
        }
        var pagesRead = total
        // Data format 2 added "Pages read"; older files were always read in full (mf_ultralight_load).
        if dataFormat >= FlipperNFCFormat.dataFormatVersion {
            guard let readText = file["Pages read"] else { throw NFCError.malformedDump("missing Pages read") }
            guard let read = Int(readText), read >= 0, read <= total else {
                throw NFCError.malformedDump("Pages read '\(readText)' with \(total) pages total")
            }
            pagesRead = read
        }
        var pages: [Page] = []
        for number in 0..<total {
            let data = try file.bytes("Page \(number)", count: 4)
            if number < pagesRead { pages.append(Page(number: number, data: data)) }
        }

        let derivedUID = Type2PageImage.uid(in: pages)
        let uid = derivedUID ?? uidLine
        let knownVersion = version.flatMap { $0.allSatisfy { $0 == 0 } ? nil : $0 }
        let (type, product) = DumpImporter.type2Identity(version: knownVersion, named: row, pageCount: total)

        return TagDump(
            cardInfo: CardInfo(
                type: type, uid: uid, atqa: atqa, sak: sak, product: product, version: knownVersion),
            pages: pages,
            ndefMessage: Type2TLV.extractMessage(from: pages),
            facts: [Fact(key: "Imported From", value: "Flipper Zero .nfc"), Fact(key: "Pages Total", value: "\(total)")],
            // Fewer pages read than the product lets anyone read: an AUTH0 boundary stopped the reader
            // (Ultralight C key pages are never readable, so 44 of 48 is a full read).
            capabilities: pagesRead < (Type2MemoryMap.forType(type)?.readablePages ?? total)
                ? [.authenticationRequired, .partiallyReadable] : [.readable],
            type2: Type2Extras(
                signature: signature.flatMap { $0.allSatisfy { $0 == 0 } ? nil : $0 }, counters: counters,
                tearing: tearing, totalPages: total)
        )
    }
}

/// The `Key: value` lines of a Flipper file (`#` comments and blank lines skipped; the first of
/// repeated keys wins, as Flipper's forward-reading loader would find it).
struct FlipperKeyValues {
    private var values: [String: String] = [:]

    init(_ text: String) {
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
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
        guard [4, 7, 10].contains(uid.count) else { throw NFCError.malformedDump("UID has \(uid.count) bytes") }
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
