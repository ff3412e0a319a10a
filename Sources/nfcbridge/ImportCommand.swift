import FoundationEssentials
import Glibc
import NFCCore

/// `nfcbridge import`: reads a dump file in any supported format and prints it as NFCBridge JSON.
/// Offline; touches no reader. See docs/cli.md, section "import".
enum ImportCommand {
    static let usage = """
        usage: nfcbridge import FILE [--format auto|\(ExportFormat.readable.map(\.rawValue).joined(separator: "|"))] [--compact]
          FILE       Flipper .nfc, Proxmark3 (MFU .bin, hf mf .bin, JSON, .eml), libnfc .mfd or JSON dump;
                     - reads standard input
          --format   the file's format (default auto: told apart by content)
          --compact  JSON without indentation

        """

    /// Runs `import` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["compact", "help"])
        if arguments.flag("help") || args.first == "help" {
            Console.out(usage)
            return
        }
        let formatName = arguments.option("format") ?? "auto"
        // The formats the file-format table has a load for.
        let format: ExportFormat?
        if formatName == "auto" {
            format = nil
        } else if let named = ExportFormat(rawValue: formatName), ExportFormat.readable.contains(named) {
            format = named
        } else {
            throw CLIError.usage("unknown format '\(formatName)': use auto, "
                + ExportFormat.readable.map(\.rawValue).joined(separator: ", "))
        }
        let compact = arguments.flag("compact")
        try arguments.rejectUnknown()
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw CLIError.usage(arguments.positionals.isEmpty ? "import needs a FILE (or - for standard input)"
                : "import takes one FILE, got \(arguments.positionals.count)")
        }
        let dump = try DumpImporter.importDump(try DumpFile.read(path), format: format, fileName: dumpFileName(path))
        Console.out(try dump.exportJSON(prettyPrinted: !compact) + "\n")
    }
}
