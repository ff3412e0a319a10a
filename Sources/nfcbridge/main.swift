import Foundation
import NFCCore

/// One subcommand: name, one-line help, and the function that runs it with the remaining arguments.
struct Subcommand: Sendable {
    var name: String
    var help: String
    var run: @Sendable ([String]) async throws -> Void
}

/// The subcommands, in the order `--help` lists them.
let commands: [Subcommand] = [
    Subcommand(name: "version", help: "print the version") { _ in Console.out(NFCBridgeVersion.string + "\n") },
    Subcommand(name: "ndef", help: "decode NDEF hex to JSON, or encode JSON to hex") { try await NDEFCommand.run($0) },
    Subcommand(name: "export", help: "convert a dump file to Flipper, Proxmark3, MFD, JSON, hex or binary") { try await ExportCommand.run($0) },
    Subcommand(name: "import", help: "read a Flipper, Proxmark3, MFD or JSON dump and print it as JSON") { try await ImportCommand.run($0) },
    Subcommand(name: "readers", help: "list the NFC readers libnfc knows") { try await ReadersCommand.run($0) },
    Subcommand(name: "scan", help: "identify tags as they enter the field and print them") { try await ScanCommand.run($0) },
    Subcommand(name: "dump", help: "dump the first tag found to JSON, Flipper, Proxmark3, MFD, hex or binary") { try await DumpCommand.run($0) },
    Subcommand(name: "run", help: "run the agent: reader → MQTT events, state, Home Assistant discovery") { try await RunCommand.run($0) },
    Subcommand(name: "write", help: "write an NDEF message to the first tag found and verify it") { try await WriteCommand.run($0) },
    Subcommand(name: "format", help: "NDEF-format the first tag found (empty message)") { try await FormatCommand.run($0) },
    Subcommand(name: "lock", help: "make the tag with --uid read-only for good (irreversible)") { try await LockCommand.run($0) },
]

/// NFCBridge's version string.
enum NFCBridgeVersion {
    static let string = "0.1.0"
}

func usage(_ commands: [Subcommand]) -> String {
    var text = "usage: nfcbridge <command> [options]\n\ncommands:\n"
    for command in commands {
        text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.help + "\n"
    }
    return text + "\nSee docs/cli.md for every option and the exit codes.\n"
}

let argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
    Console.out(usage(commands))
    exit(argv.isEmpty ? 2 : 0)
}
guard let command = commands.first(where: { $0.name == name }) else {
    Console.report(.usage("unknown command '\(name)'"))
    Console.err(usage(commands))
    exit(2)
}
do {
    try await command.run(Array(argv.dropFirst()))
    exit(0)
} catch let error as CLIError {
    Console.report(error)
    exit(error.exitCode)
} catch let error as NFCError {
    Console.report(CLIError(error))
    exit(1)
} catch {
    Console.report(CLIError(code: "internal_error", message: "\(error)", exitCode: 1))
    exit(1)
}
