import NFCCore

/// The `format` of a `dump` command: which of NFCCore's exports goes into the response.
public enum DumpFileFormat: String, Sendable, CaseIterable, Codable {
    /// NFCCore's JSON export, as a JSON object in `data.dump` (the default).
    case json
    /// Flipper Zero `.nfc` text, base64 in `data.file`.
    case flipper
    /// Proxmark3 MFU binary (`.bin`), base64 in `data.file`.
    case pm3
    /// libnfc MFD binary (`.mfd`), base64 in `data.file`.
    case mfd
    /// NFCCore's hex listing, base64 in `data.file`.
    case hex

    /// What follows the base name in the file name, and the content type — as NFCCore's
    /// `exportAll()` names its artifacts.
    var file: (suffix: String, contentType: String) {
        switch self {
        case .json: (".json", "application/json")
        case .flipper: (".nfc", "text/plain")
        case .pm3: ("-proxmark3.bin", "application/octet-stream")
        case .mfd: (".mfd", "application/octet-stream")
        case .hex: (".txt", "text/plain")
        }
    }

    /// The file of `dump` in this format (not for ``json``, whose export goes into the response as JSON).
    func export(_ dump: TagDump) throws -> [UInt8] {
        switch self {
        case .json: Array(try dump.exportJSON(prettyPrinted: false).utf8)
        case .flipper: Array(try dump.exportFlipperNFC().utf8)
        case .pm3: try dump.exportProxmark3MFU()
        case .mfd: try dump.exportLibNFCMFD()
        case .hex: Array(dump.exportHex().utf8)
        }
    }

    /// What a dump for this format needs read (NFCCore reads no more: no counters for mfd).
    var dumpTarget: DumpTarget {
        switch self {
        case .json: .everything
        case .flipper: .file(.flipper)
        case .pm3: .file(.proxmark3)
        case .mfd: .file(.mfd)
        case .hex: .memory
        }
    }
}
