import FoundationEssentials
import Glibc
import NFCCore
import POSIXThreads

// One malloc arena for every thread, set before the first thread starts (POSIXThreads).
MallocArenas.useOne()

// SIGINT / SIGTERM caught from here on, acted on by one thread (StopSignals.swift).
StopSignals.install()

// libnfc logs its own errors on stderr (`error libnfc.driver.pn532_uart Invalid serial port`,
// `Unable to find USB busses`) before ours: off unless the user asks for them. Set before the first
// nfc_init (libnfc reads LIBNFC_LOG_LEVEL there); an explicit LIBNFC_LOG_LEVEL is kept.
setenv("LIBNFC_LOG_LEVEL", "0", 0)

/// One subcommand: name, one-line help, its usage text (`nfcbridge help <command>`, `-h`) and the
/// function that runs it with the remaining arguments.
struct Subcommand: Sendable {
    var name: String
    var help: String
    /// Builds the usage text. Only `help` and `-h` read it: `export` and `import` list every file
    /// format of every tag family, which a command that runs should not pay for at each start
    /// (issue 25: 8 % of a `dump`'s CPU time, before the reader was opened).
    private var usageText: @Sendable () -> String
    var run: @Sendable ([String]) async throws -> Void

    init(
        name: String, help: String, usage: @autoclosure @escaping @Sendable () -> String,
        run: @escaping @Sendable ([String]) async throws -> Void
    ) {
        self.name = name
        self.help = help
        self.usageText = usage
        self.run = run
    }

    /// The usage text.
    var usage: String { usageText() }
}

/// The subcommands, in the order `--help` lists them.
let commands: [Subcommand] = [
    Subcommand(name: "version", help: "print the version", usage: "usage: nfcbridge version   (also: nfcbridge --version)\n") { args in
        guard args.isEmpty else { throw CLIError.usage("version takes no arguments") }
        Console.out(NFCBridgeVersion.string + "\n")
    },
    Subcommand(name: "ndef", help: "decode NDEF hex to JSON, or encode JSON to hex", usage: NDEFCommand.usage) { try await NDEFCommand.run($0) },
    Subcommand(name: "export", help: "convert a dump file to Flipper, Proxmark3, MFD, JSON, hex or binary", usage: ExportCommand.usage) { try await ExportCommand.run($0) },
    Subcommand(name: "import", help: "read a Flipper, Proxmark3, MFD or JSON dump and print it as JSON", usage: ImportCommand.usage) { try await ImportCommand.run($0) },
    Subcommand(name: "readers", help: "list the NFC readers libnfc knows", usage: ReadersCommand.usage) { try await ReadersCommand.run($0) },
    Subcommand(name: "scan", help: "identify tags as they enter the field and print them", usage: ScanCommand.usage) { try await ScanCommand.run($0) },
    Subcommand(name: "dump", help: "dump the first tag found to JSON, Flipper, Proxmark3, MFD, hex or binary", usage: DumpCommand.usage) { try await DumpCommand.run($0) },
    Subcommand(name: "run", help: "run the agent: reader → MQTT events, state, Home Assistant discovery", usage: RunCommand.usage) { try await RunCommand.run($0) },
    Subcommand(name: "write", help: "write an NDEF message to the first tag found and verify it", usage: WriteCommand.usage) { try await WriteCommand.run($0) },
    Subcommand(name: "format", help: "NDEF-format the first tag found (empty message)", usage: FormatCommand.usage) { try await FormatCommand.run($0) },
    Subcommand(name: "write-block", help: "write one raw MIFARE Classic block with a known key and verify it", usage: WriteBlockCommand.usage) { try await WriteBlockCommand.run($0) },
    Subcommand(name: "lock", help: "make the tag with --uid read-only for good (irreversible)", usage: LockCommand.usage) { try await LockCommand.run($0) },
    Subcommand(name: "encode", help: "encode a roll of tags: each next tag gets the next serial (resumable)", usage: EncodeCommand.usage) { try await EncodeCommand.run($0) },
    Subcommand(name: "help", help: "print this help, or a command's usage: help <command>", usage: "usage: nfcbridge help [COMMAND]\n") { _ in },
]

/// NFCBridge's version string.
enum NFCBridgeVersion {
    static let string = "0.1.0"
}

/// The top-level help (`nfcbridge --help`); the man page nfcbridge(1) is generated from it and from
/// every command's usage (scripts/manpages.sh).
func usage(_ commands: [Subcommand]) -> String {
    var text = "usage: nfcbridge <command> [options]\n       nfcbridge --version | --help | help <command>\n\ncommands:\n"
    for command in commands {
        // Names of 10 characters or more (write-block) get two spaces instead of the column.
        text += "  " + command.name + String(repeating: " ", count: max(2, 10 - command.name.count)) + command.help + "\n"
    }
    return text + "\n`nfcbridge <command> --help` (or -h) prints a command's options. See docs/cli.md and nfcbridge(1).\n"
}

/// Whether `args` ask for help (`-h` or `--help` before any `--`).
func asksForHelp(_ args: [String]) -> Bool {
    for arg in args {
        if arg == "--" { return false }
        if arg == "-h" || arg == "--help" { return true }
    }
    return false
}

func exitWith(_ error: CLIError) -> Never {
    Console.report(error)
    exit(error.exitCode)
}

// CommandLine.arguments repairs bytes that are not UTF-8 to U+FFFD, which `write --text` would
// then put on a tag: such an argument is refused here, by its position, before anything runs.
for index in 1..<Int(CommandLine.argc) {
    guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
    exitWith(.usage("argument \(index) is not UTF-8 text (convert it first, e.g. with iconv -f latin1 -t utf-8)"))
}
let argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first, !["--help", "-h"].contains(name) else {
    Console.out(usage(commands))
    exit(argv.isEmpty ? 2 : 0)
}
if name == "--version" || name == "-V" {
    Console.out(NFCBridgeVersion.string + "\n")
    exit(0)
}
if name == "help" {
    guard argv.count > 1 else {
        Console.out(usage(commands))
        exit(0)
    }
    guard argv.count == 2 else { exitWith(.usage("help takes one command name")) }
    let topic = asksForHelp([argv[1]]) ? "help" : argv[1]
    guard let command = commands.first(where: { $0.name == topic }) else {
        Console.report(.usage("unknown command '\(argv[1])'"))
        Console.err(usage(commands))
        exit(2)
    }
    Console.out(command.usage)
    exit(0)
}
guard let command = commands.first(where: { $0.name == name }) else {
    if name.hasPrefix("-") { exitWith(.usage("unknown option '\(name)' (options follow the command: nfcbridge <command> --help)")) }
    Console.report(.usage("unknown command '\(name)'"))
    Console.err(usage(commands))
    exit(2)
}
let commandArguments = Array(argv.dropFirst())
if asksForHelp(commandArguments) {
    Console.out(command.usage)
    exit(0)
}
// The command runs in a task; the main thread waits here until it calls exit. A top-level `await`
// would instead end in dispatch_main(), whose pthread_exit unwinds the main thread: libgcc's unwinder
// then reads the executable's unwind tables (.eh_frame_hdr by binary search, with the kernel's 64 kB
// fault-around), about 0.9 MB of the agent's RSS for the rest of its life (issue 25). Nothing here
// runs on the main actor, so nothing waits for a main queue.
Task.detached { [command, commandArguments] in
    do {
        try await command.run(commandArguments)
        exit(0)
    } catch let error as CLIError {
        exitWith(error)
    } catch let error as NFCError {
        exitWith(CLIError(error))
    } catch {
        exitWith(CLIError(code: "internal_error", message: "\(error)", exitCode: 1))
    }
}
MainThread.park()
