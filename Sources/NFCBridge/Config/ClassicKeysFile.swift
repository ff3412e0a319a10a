import FoundationEssentials
import Glibc
import NFCCore

/// The `dump.keys_file` format: one MIFARE Classic key per line as 12 hex digits (spaces and colons
/// allowed), `#` starts a comment, blank lines are ignored; LF, CR LF or CR line ends. The keys are
/// tried first, then NFCCore's well-known defaults.
package enum ClassicKeysFile {
    /// The largest keys file read (1 MiB: about 80,000 keys, far more than any dictionary tries).
    static let fileLimit = 1 << 20

    /// Reads the keys of `path`; a bad line is a configuration error naming the file and its line.
    static func read(_ path: String, key value: ConfigurationValue) throws(ConfigurationError) -> ClassicKeyDictionary {
        let data = try value.content(ofFile: path, limit: fileLimit)
        do throws(ConfigurationError) {
            return try parse(data, path: path)
        } catch {
            // A bad line is named in the keys file; a problem of the whole set, at the configuration's key.
            guard error.line != nil else { throw value.failure(error.detail) }
            throw ConfigurationError(source: error.source, line: error.line, key: value.key, detail: error.detail)
        }
    }

    /// The keys in `data` (the content of the file at `path`, named in errors); a bad line is an
    /// error naming its line.
    package static func parse(_ data: [UInt8], path: String) throws(ConfigurationError) -> ClassicKeyDictionary {
        var keys: [String] = []
        for (index, rawLine) in String(textFile: data).textLines().enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let text = line.trimmingWhitespaceAndNewlines()
            if text.isEmpty { continue }
            guard let bytes = [UInt8](hex: text), bytes.count == 6 else {
                throw ConfigurationError(
                    source: path, line: index + 1,
                    detail: "\(ConfigurationError.quoted(text)) is not a MIFARE Classic key (12 hex digits)")
            }
            keys.append(text)
        }
        do {
            return try ClassicKeyDictionary(hexKeys: keys)
        } catch {
            throw ConfigurationError(source: path, detail: error.message)
        }
    }
}
