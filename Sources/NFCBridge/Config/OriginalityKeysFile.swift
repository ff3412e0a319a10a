import NFCCore

/// The `access.originality_keys_file` format: originality public keys beyond NFCCore's table (a
/// product whose key NXP published later, a site's own test chips). One key per line:
/// `<curve> <public key> <name>` (columns apart by spaces or tabs) — the curve `secp128r1`,
/// `secp192r1` or `secp224r1`, the key uncompressed as hex (`04 ‖ X ‖ Y`), then its name as the
/// `trust` object shows it; `#` starts a comment. A key checks every signature of its curve's length: secp128r1 keys Type 2 READ_SIG and
/// ICODE READ SIGNATURE answers (32 bytes), secp192r1 keys Ultralight AES READ_SIG answers (48),
/// secp224r1 keys DESFire / NTAG 4xx Read_Sig answers (56). Public keys are no secret.
package enum OriginalityKeysFile {
    /// The largest file read (64 KiB: hundreds of keys).
    static let fileLimit = 1 << 16

    /// Reads the keys of `path`; a bad line is a configuration error naming the file and its line.
    static func read(_ path: String, key value: ConfigurationValue) throws(ConfigurationError) -> [OriginalityKey] {
        try parse(try value.content(ofFile: path, limit: fileLimit), path: path)
    }

    /// The keys in `data` (the content of the file at `path`, named in errors).
    package static func parse(_ data: [UInt8], path: String) throws(ConfigurationError) -> [OriginalityKey] {
        var keys: [OriginalityKey] = []
        let lines = String(textFile: data).textLines()
        for (index, rawLine) in lines.enumerated() {
            let text = (rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingWhitespaceAndNewlines()
            if text.isEmpty { continue }
            // Columns are aligned with spaces or tabs, as an editor lays them out.
            let fields = text.split(maxSplits: 2, omittingEmptySubsequences: true) { $0 == " " || $0 == "\t" }
                .map(String.init)
            func failure(_ detail: String) -> ConfigurationError {
                ConfigurationError(source: path, line: index + 1, detail: detail)
            }
            guard fields.count == 3 else {
                throw failure("expected '<curve> <public key hex> <name>', got \(ConfigurationError.quoted(text))")
            }
            guard let curve = ECDSAVerifier.Curve(rawValue: fields[0]) else {
                throw failure("the curve must be secp128r1, secp192r1 or secp224r1, got \(ConfigurationError.quoted(fields[0]))")
            }
            do {
                _ = try ECDSAVerifier(curve: curve, publicKeyHex: fields[1])
            } catch {
                throw failure(error.message)
            }
            // No reading: the key is tried on every signature of its curve's length (the format has never
            // named one, so every file written for it loads as it did).
            // The name is the rest of the line: without the spaces that align the columns (as in the docs).
            keys.append(OriginalityKey(
                name: fields[2].trimmingWhitespaceAndNewlines(), products: "from \(path)", curve: curve, reading: nil,
                publicKeyHex: fields[1], source: "\(path):\(index + 1)"))
        }
        return keys
    }
}
