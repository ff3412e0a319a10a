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
        let base = exportBaseName
        var artifacts = [
            ExportArtifact(fileName: base + ".txt", contentType: "text/plain", data: Array(exportHex().utf8)),
            ExportArtifact(fileName: base + ".json", contentType: "application/json", data: Array(try exportJSON().utf8)),
            ExportArtifact(fileName: base + ".bin", contentType: "application/octet-stream", data: exportBinary()),
        ]
        if let mfd = try? exportLibNFCMFD() {
            artifacts.append(ExportArtifact(fileName: base + ".mfd", contentType: "application/octet-stream", data: mfd))
        }
        if let flipper = try? exportFlipperNFC() {
            artifacts.append(ExportArtifact(fileName: base + ".nfc", contentType: "text/plain", data: Array(flipper.utf8)))
        }
        if let proxmark = try? exportProxmark3MFU() {
            artifacts.append(
                ExportArtifact(fileName: base + "-proxmark3.bin", contentType: "application/octet-stream", data: proxmark))
        }
        if let proxmarkJSON = try? exportProxmark3JSON() {
            artifacts.append(
                ExportArtifact(fileName: base + "-proxmark3.json", contentType: "application/json", data: Array(proxmarkJSON.utf8)))
        }
        if let keys = try? exportProxmark3Keys() {
            artifacts.append(ExportArtifact(fileName: base + "-key.bin", contentType: "application/octet-stream", data: keys))
        }
        if let eml = try? exportProxmark3EML() {
            artifacts.append(ExportArtifact(fileName: base + ".eml", contentType: "text/plain", data: Array(eml.utf8)))
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
