import Glibc
import NFCCore
import YAMLDocument

/// The `auth.keys_file` format (docs/keys.md): a YAML mapping `keys:` of named entries, each with a
/// `kind` that one row of ``AuthKeyKind/table`` reads (DESFire application keys, Ultralight C keys,
/// NTAG passwords…) into the families' dump settings. The file holds secrets, so it is refused unless
/// it is a regular file of mode 0600 or stricter owned by the agent's user. The names are all that is
/// ever shown (`info`, facts, events); an error names the file and line, never a key's bytes.
package enum AuthKeysFile {
    /// The largest keys file read (1 MiB).
    static let fileLimit = 1 << 20
    /// The most entries a file may hold.
    static let entryLimit = 4096

    /// What a keys file gave: the entries' names and kinds in file order, and the settings the rows
    /// filled (``FamilyDumpOptions``: the DESFire keys, the Type 2 keys…).
    package struct Loaded: Sendable, Equatable {
        /// The names and kinds, in file order: what `info` shows.
        package var names: [AuthKeyName] = []
        /// The families' settings holding the keys.
        package var families = FamilyDumpOptions()
    }

    /// Reads `path` (the value of `auth.keys_file`) and adds its keys to `families`. A file that is
    /// missing, too open or not the agent's user's is an error at the configuration's key; a bad entry
    /// names the keys file and its line.
    static func read(_ path: String, key value: ConfigurationValue, into families: FamilyDumpOptions)
        throws(ConfigurationError) -> Loaded
    {
        let read: [UInt8]?
        do throws(BoundedFile.Failure) {
            read = try BoundedFile.read(path, limit: fileLimit, check: { privacyProblem(path: path, status: $0) })
        } catch {
            throw value.failure(error.message)
        }
        guard let data = read else { throw value.failure("file '\(path)' does not exist") }
        return try parse(data, path: path, into: families)
    }

    /// Reads the keys file at `path` for a command-line tool (`nfcbridge dump --keys`): the same checks
    /// as `auth.keys_file`, an error naming the file (and the line of a bad entry).
    package static func load(_ path: String) throws(ConfigurationError) -> Loaded {
        let read: [UInt8]?
        do throws(BoundedFile.Failure) {
            read = try BoundedFile.read(path, limit: fileLimit, check: { privacyProblem(path: path, status: $0) })
        } catch {
            throw ConfigurationError(source: path, detail: error.message)
        }
        guard let data = read else { throw ConfigurationError(source: path, detail: "file '\(path)' does not exist") }
        return try parse(data, path: path)
    }

    /// Why a keys file with status `status` is refused, or nil: it must be the agent's user's and
    /// readable and writable by nobody else (mode 0600 or stricter).
    static func privacyProblem(path: String, status: stat, user: uid_t = geteuid()) -> String? {
        let mode = status.st_mode & 0o7777
        if status.st_uid != user {
            return "'\(path)' is owned by uid \(status.st_uid), not by the agent's user (uid \(user)): "
                + "a keys file must be the agent's own (chown it to the user the agent runs as)"
        }
        if mode & ~mode_t(0o600) != 0 {
            return "'\(path)' has mode \(octal(mode)): a keys file must be readable by its owner only "
                + "(chmod 600 '\(path)')"
        }
        return nil
    }

    /// `mode` as four octal digits (0644).
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The keys of `data` (the content of the file at `path`, named in errors) added to `families`.
    package static func parse(_ data: [UInt8], path: String, into families: FamilyDumpOptions = FamilyDumpOptions())
        throws(ConfigurationError) -> Loaded
    {
        let root: YAMLNode
        do throws(YAMLSyntaxError) {
            root = try YAMLParser.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw ConfigurationError(source: path, line: error.line, detail: error.message)
        }
        var loaded = Loaded(families: families)
        if root.isNull { return loaded }
        guard case let .mapping(top, _) = root else {
            throw ConfigurationError(source: path, line: root.line, detail: "expected a mapping with `keys:`, found \(root.kindDescription)")
        }
        for entry in top where entry.key != "keys" {
            throw ConfigurationError(source: path, line: entry.line, detail: "unknown key '\(entry.key)': the file holds `keys:` only")
        }
        guard let keys = top.first(where: { $0.key == "keys" })?.value, !keys.isNull else { return loaded }
        guard case let .mapping(entries, _) = keys else {
            throw ConfigurationError(source: path, line: keys.line, detail: "keys: expected a mapping of named keys, found \(keys.kindDescription)")
        }
        guard entries.count <= entryLimit else {
            throw ConfigurationError(source: path, line: keys.line, detail: "keys: \(entries.count) entries, at most \(entryLimit) are read")
        }
        for entry in entries {
            let fields = try AuthKeyEntry(entry, path: path)
            let kind = try fields.kind()
            try fields.checkFields(allowed: kind.fields)
            try kind.read(fields, &loaded.families)
            loaded.names.append(AuthKeyName(name: entry.key, kind: kind.name))
        }
        return loaded
    }
}

/// A key's name and kind, as `info` shows it (never the key).
package struct AuthKeyName: Sendable, Equatable, Encodable {
    /// The name in the keys file.
    package var name: String
    /// Its kind (`desfire`, `ultralight_c`, `ntag_password`…).
    package var kind: String
}
