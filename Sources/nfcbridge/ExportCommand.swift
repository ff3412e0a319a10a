import FoundationEssentials
import Glibc
import NFCCore

/// `nfcbridge export`: converts a dump file (any format `import` reads) to one export format.
/// Offline; touches no reader. See docs/cli.md, section "export".
enum ExportCommand {
    static let usage = """
        usage: nfcbridge export --from FILE --format \(ExportFormat.names(separator: "|"))
                                [--compact] [--partial] [--output FILE]
          --from FILE     the dump: NFCBridge/CoreExtendedNFC JSON, Flipper .nfc, Proxmark3 (MFU .bin, hf mf
                          .bin, JSON, .eml) or libnfc MFD (told apart by content); - reads standard input
          --format        flipper (.nfc), pm3 (Proxmark3 MFU .bin; Classic: hf-mf-<UID>-dump.bin), pm3json
                          (Proxmark3 JSON), pm3key (Classic key file hf-mf-<UID>-key.bin), eml (Classic,
                          Proxmark3 .eml), mfd (libnfc), mfd64 (the 64-byte MFD nfc-mfultralight loads for
                          Ultralight C and NTAG203), json, hex (text), bin (raw)
          --compact       json without indentation
          --partial       pm3, pm3json, eml, mfd and mfd64 of a partial dump (pages or blocks not read): write the
                          pages or whole sectors up to the first one not read, nothing after it (refused
                          without it)
          --output FILE   write there instead of standard output (binary formats need it on a terminal)

        """

    /// Runs `export` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["compact", "partial", "help"])
        if arguments.flag("help") || args.first == "help" {
            Console.out(usage)
            return
        }
        guard let from = arguments.option("from") else { throw CLIError.usage("export needs --from FILE") }
        guard let formatName = arguments.option("format") else {
            throw CLIError.usage("export needs --format " + ExportFormat.names(separator: "|"))
        }
        guard let format = ExportFormat(rawValue: formatName) else {
            throw CLIError.usage("unknown format '\(formatName)': use " + ExportFormat.names(separator: ", "))
        }
        let compact = arguments.flag("compact")
        let partial = arguments.flag("partial")
        let output = arguments.option("output")
        try arguments.rejectUnknown()
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("export takes no positional arguments (got '\(arguments.positionals[0])')")
        }
        guard !compact || format == .json else { throw CLIError.usage("--compact applies to --format json only") }
        guard !partial || format.takesPartial else {
            throw CLIError.usage("--partial applies to --format \(ExportFormat.partialFormatNames) only")
        }
        if format.isBinary, output == nil, isatty(STDOUT_FILENO) == 1 {
            throw CLIError.usage("\(format.rawValue) is binary: give --output FILE or redirect standard output")
        }

        let dump = try DumpImporter.importDump(try DumpFile.read(from), fileName: dumpFileName(from))
        let bytes = try format.render(dump, compact: compact, partial: partial)
        if let output {
            try DumpFile.write(bytes, to: output)
        } else {
            Console.out(bytes: bytes)
        }
    }
}

/// Reading and writing the files of `export` and `import`.
enum DumpFile {
    /// The bytes of `path`, or of standard input for `-`. Reading stops after
    /// ``DumpImporter/maxFileSize`` bytes: a longer input (`/dev/zero`, a wrong file) is no dump and
    /// answers `malformed_dump` without being read to its end.
    static func read(_ path: String) throws -> [UInt8] {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError.input("io_error", "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        let limit = DumpImporter.maxFileSize
        let bytes: [UInt8]
        do throws(Console.ReadFailure) {
            bytes = try Console.readAll(fd, limit: limit)
        } catch {
            throw CLIError.input("io_error", "cannot read \(path): \(error.reason)")
        }
        if bytes.count <= limit { return bytes }
        throw NFCError.malformedDump("\(path == "-" ? "standard input" : path) holds more than \(limit) bytes; no dump file is that large")
    }

    /// Writes `bytes` to `path`.
    ///
    /// - A regular file (or a new one) is replaced atomically: a temporary file made with `mkstemp`
    ///   next to it (never an existing name, never through a link planted there), synced, renamed over
    ///   it. A symbolic link stays: its target is what is replaced. A replaced file keeps its mode.
    /// - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` are written on that descriptor,
    ///   and anything else that is not a regular file (a device such as `/dev/null`, a FIFO) is
    ///   written into: replacing those would break the system or the reader at the other end.
    static func write(_ bytes: [UInt8], to path: String) throws {
        func failure(_ name: String = path) -> CLIError {
            CLIError.input("io_error", "cannot write \(name): \(String(cString: strerror(errno)))")
        }
        if let descriptor = openDescriptor(named: path) {
            guard Console.writeAll(descriptor, bytes) else { throw failure() }
            return
        }
        // The file itself, through any symbolic links (a link that points nowhere yet: the link's path).
        let target = realpath(path, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? path
        var existing = stat()
        let exists = stat(target, &existing) == 0
        if exists, existing.st_mode & S_IFMT != S_IFREG {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw failure() }
            defer { close(fd) }
            guard Console.writeAll(fd, bytes) else { throw failure() }
            return
        }
        var template = Array((target + ".nfcbridge-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw failure() }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let mask = umask(0)
        umask(mask)
        let mode = exists ? existing.st_mode & 0o7777 : 0o644 & ~mask
        guard fchmod(fd, mode) == 0, Console.writeAll(fd, bytes), fsync(fd) == 0 else {
            let error = failure()
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, target) == 0 else {
            let error = failure()
            unlink(temporary)
            throw error
        }
    }

    /// The descriptor a path names (`/dev/stdout` → 1, `/dev/fd/3` → 3), nil for any other path.
    private static func openDescriptor(named path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                guard let number = Int32(path.dropFirst(prefix.count)), fcntl(number, F_GETFD) != -1 else { return nil }
                return number
            }
            return nil
        }
    }
}
