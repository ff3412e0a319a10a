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

    /// File name extension and content type of the file formats.
    var file: (fileExtension: String, contentType: String) {
        switch self {
        case .json: ("json", "application/json")
        case .flipper: ("nfc", "text/plain")
        case .pm3: ("bin", "application/octet-stream")
        case .mfd: ("mfd", "application/octet-stream")
        case .hex: ("txt", "text/plain")
        }
    }
}
