import FoundationEssentials
import Glibc
import LibNFCReader
import NFCBridge
import NFCCore

/// `nfcbridge dump`: dumps the first tag the reader finds into one export format.
/// See docs/cli.md, section "dump".
enum DumpCommand {
    static let usage = """
        usage: nfcbridge dump [--device CONNSTRING] [--format json|flipper|pm3|pm3json|pm3key|eml|mfd|mfd64|hex|bin] [--compact]
                              [--partial] [--output FILE] [--keys FILE] [--timeout SECONDS]
          --device   libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --format   json (default), flipper (.nfc), pm3 (Proxmark3 MFU; Classic hf mf .bin), pm3json,
                     pm3key (Classic key file), eml (Classic), mfd (libnfc), mfd64 (Ultralight C,
                     NTAG203: the 64-byte MFD nfc-mfultralight loads), hex, bin
          --compact  json without indentation
          --partial  pm3, pm3json, eml, mfd and mfd64 of a tag not read in full (protected pages, unopened sectors): write
                     up to the first page or block not read (refused without it)
          --output   write there instead of standard output (binary formats need it on a terminal);
                     when the tag leaves mid-dump, the pages read so far are written there
          --keys     a keys file (docs/keys.md; mode 0600, yours): DESFire application keys open the files
                     they protect; the dump names which key opened what, never the key
          --timeout  give up after SECONDS without a tag (exit 3)

        """

    /// Runs `dump` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["compact", "partial", "help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let options = try ReaderOptions(&arguments)
        let formatName = arguments.option("format") ?? ExportFormat.json.rawValue
        guard let format = ExportFormat(rawValue: formatName) else {
            throw CLIError.usage("unknown format '\(formatName)': use " + ExportFormat.names(separator: ", "))
        }
        let compact = arguments.flag("compact")
        let partial = arguments.flag("partial")
        let output = arguments.option("output")
        let keysFile = arguments.option("keys")
        try arguments.finish(optionsOnly: "dump")
        let families: FamilyDumpOptions
        do throws(ConfigurationError) {
            families = try keysFile.map { path throws(ConfigurationError) in try AuthKeysFile.load(path).families } ?? FamilyDumpOptions()
        } catch {
            throw CLIError(code: error.code.rawValue, message: error.message, exitCode: 2)
        }
        guard !compact || format == .json else { throw CLIError.usage("--compact applies to --format json only") }
        guard !partial || format.takesPartial else {
            throw CLIError.usage("--partial applies to --format \(ExportFormat.partialFormatNames) only")
        }
        if format.isBinary, output == nil, isatty(STDOUT_FILENO) == 1 {
            throw CLIError.usage("\(format.rawValue) is binary: give --output FILE or redirect standard output")
        }

        let dump: TagDump
        do {
            dump = try await options.withReader { device in
                try await dumpFirstTag(device: device, options: options, target: format.dumpTarget, families: families)
            }
        } catch let error as PartialDump {
            // Keep what was read when there is a file to keep it in; standard output gets only the error.
            var failure = CLIError.reader(error.cause)
            if let output {
                // Only the pages read so far, also in pm3 and mfd (never zeros for the rest).
                do {
                    try write(format.render(error.dump, compact: compact, partial: true), to: output)
                    failure.message += " (\(output) holds what was read before)"
                } catch {
                    failure.message += " (\(output) was not written, and holds what it held: \(Self.reason(error)))"
                }
            }
            throw failure
        } catch {
            // Nothing read that a file could keep (a MIFARE Classic or DESFire dump, or a failure before
            // the first page): the output is left as it was, and the error says so.
            let mapped = CLIError.reader(failure: error)
            guard let output, var failure = mapped as? CLIError else { throw mapped }
            failure.message += " (\(output) was not written, and holds what it held)"
            throw failure
        }
        for line in DESFireKeyOrderWarning.lines(families: families, dump: dump) { Console.err("warning: " + line) }
        try write(format.render(dump, compact: compact, partial: partial), to: output)
    }

    /// Why a file could not be written, for a message.
    private static func reason(_ error: any Error) -> String {
        (error as? CLIError)?.message ?? (error as? NFCError)?.message ?? "\(error)"
    }

    /// A dump that ended early, with what it read (never empty: ``DumpProgress/partialDump(after:)``).
    struct PartialDump: Error {
        var dump: TagDump
        var cause: NFCError
    }

    /// Waits for a tag, identifies it and dumps it. What the family read before a failure comes back
    /// in ``PartialDump``.
    private static func dumpFirstTag(device: any ReaderDevice, options: ReaderOptions, target: DumpTarget,
                                     families: FamilyDumpOptions) async throws
        -> TagDump
    {
        let transport = try await options.firstTag(on: device).transport
        let info = try await TagIdentifier.identify(transport)
        let progress = DumpProgress()
        let reporter = ProgressLine(progress: progress)
        defer { reporter.finish() }
        do {
            return try await TagDumper.dump(info: info, transport: transport,
                                            options: DumpOptions(progress: progress, target: target, families: families))
        } catch let error as NFCError {
            guard let partial = progress.partialDump(after: error) else { throw error }
            throw PartialDump(dump: partial, cause: error)
        }
    }

    private static func write(_ bytes: [UInt8], to output: String?) throws {
        if let output {
            try DumpFile.write(bytes, to: output)
        } else {
            Console.out(bytes: bytes)
        }
    }
}

/// "dump: 40/135 pages" on standard error, rewritten in place while a dump runs — only when
/// standard error is a terminal, so logs and pipes stay clean.
final class ProgressLine: Sendable {
    private let task: Task<Void, Never>?

    init(progress: DumpProgress) {
        guard isatty(STDERR_FILENO) == 1 else {
            task = nil
            return
        }
        task = Task.detached {
            var shown = ""
            while !Task.isCancelled {
                let unit = progress.unit
                // Nothing to show until the family's dump started and named its unit.
                let line = unit.isEmpty ? "" : "dump: \(progress.read)\(progress.total.map { "/\($0)" } ?? "") \(unit)"
                if line != shown {
                    shown = line
                    Console.errRaw("\r\u{1B}[K\(line)")
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Stops updating and clears the line.
    func finish() {
        guard let task else { return }
        task.cancel()
        Console.errRaw("\r\u{1B}[K")
    }
}
