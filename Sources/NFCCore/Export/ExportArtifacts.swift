/// One exported file: a suggested name, its media type and its bytes.
public struct ExportArtifact: Sendable, Hashable {
    /// File name to save as (`ntag-deadbeef.json`).
    public var fileName: String
    /// Media type (`application/json`, `text/plain`, `application/octet-stream`).
    public var contentType: String
    /// The file's bytes.
    public var data: [UInt8]

    public init(fileName: String, contentType: String, data: [UInt8]) {
        self.fileName = fileName
        self.contentType = contentType
        self.data = data
    }
}

extension TagDump {
    /// Every export of this dump, in upstream's order: `<base>.txt` (hex text), `<base>.json` (pretty
    /// JSON), `<base>.bin` (binary), then only those that succeed for this dump: `<base>.mfd`,
    /// `<base>.nfc` (Flipper), `<base>-proxmark3.bin`, `<base>-proxmark3.json`, and for MIFARE Classic
    /// `<base>-key.bin` (Proxmark3 keys) and `<base>.eml`. Exports that fail (no pages, a page that is
    /// not 4 bytes, a partial dump) are left out rather than failing the whole set.
    public func exportAll() throws -> [ExportArtifact] {
        func artifact(_ format: ExportFormat, _ data: [UInt8]) -> ExportArtifact {
            ExportArtifact(fileName: exportBaseName + format.fileSuffix, contentType: format.contentType, data: data)
        }
        // File names and content types from the one table (ExportFormat), as the MQTT dump names them.
        var artifacts = try [ExportFormat.hex, .json, .bin].map { artifact($0, try $0.render(self)) }
        for format in [ExportFormat.mfd, .flipper, .pm3, .pm3json, .pm3key, .eml] {
            if let data = try? format.render(self) { artifacts.append(artifact(format, data)) }
        }
        return artifacts
    }

    /// `<family>-<uid>`: the family description lowercased, every character outside a–z and 0–9 made
    /// `-`, runs of `-` collapsed and trimmed, then the UID in lowercase hex (`ntag-deadbeef`,
    /// `mifare-ultralight-04a1…`, `passport-emrtd-…`).
    public var exportBaseName: String {
        var prefix = ""
        for character in cardInfo.type.family.description.lowercased() {
            let keep = ("a"..."z").contains(character) || ("0"..."9").contains(character)
            let next: Character = keep ? character : "-"
            if next == "-", prefix.last == "-" || prefix.isEmpty { continue }
            prefix.append(next)
        }
        while prefix.last == "-" { prefix.removeLast() }
        return prefix + "-" + cardInfo.uid.hexString.lowercased()
    }
}
