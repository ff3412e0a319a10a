/// The dump file formats NFCBridge reads.
public enum DumpFormat: String, Sendable, CaseIterable {
    /// NFCBridge / CoreExtendedNFC structured JSON (``TagDump/exportJSON(prettyPrinted:)``).
    case json
    /// Flipper Zero `.nfc` (NTAG/Ultralight, MIFARE Classic).
    case flipper
    /// Proxmark3 MFU binary (new, old or plain layout); a Classic `hf mf` dump (raw blocks).
    case proxmark3 = "pm3"
    /// libnfc MFD (Type 2 page image, MIFARE Classic block image).
    case mfd
    /// Proxmark3 JSON dump (`FileType` `mfu` for Type 2, `mfc v2` for MIFARE Classic).
    case proxmark3JSON = "pm3json"
    /// Proxmark3 MIFARE Classic emulator file (`.eml`, one block per line).
    case eml
}
