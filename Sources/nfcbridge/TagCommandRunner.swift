import FoundationEssentials
import Glibc
import LibNFCReader
import NFCBridge
import NFCCore

/// What `write`, `format` and `lock` share: open the reader, wait for a tag, run the command through
/// the agent's executor (the same code the MQTT commands use), print the result `data` as one line
/// of JSON. Exit statuses as docs/cli.md says: 1 when the tag operation fails (`code` as on MQTT),
/// 2 for usage or an unusable reader, 3 when no tag came before `--timeout`.
enum TagCommandRunner {
    /// Runs `action` on the first tag the reader finds; with `expectedUID`, on the tag with that UID
    /// (also among several in the field), refusing any other.
    static func run(_ action: CommandAction, options: ReaderOptions, expectedUID: [UInt8]? = nil) async throws {
        let outcome: any CommandOutcome
        do {
            outcome = try await options.withReader { device in
                try await act(action, device: device, options: options, expectedUID: expectedUID)
            }
        } catch let error as CommandError {
            throw CLIError(error)
        } catch {
            throw CLIError.reader(failure: error)
        }
        // The one place the CLI encodes a result (the agent's is CommandResponse).
        guard let data = try? JSONValueEncoder().encode(outcome) else {
            throw CLIError(CommandError(.writeFailed, "the tag was changed, but its report could not be encoded"))
        }
        Console.out(data.jsonString + "\n")
    }

    private static func act(
        _ action: CommandAction, device: any ReaderDevice, options: ReaderOptions, expectedUID: [UInt8]?
    ) async throws -> any CommandOutcome {
        let tag = try await options.firstTag(on: device, uid: expectedUID)
        if let expectedUID, tag.uid != expectedUID {
            throw CommandError(.tagMismatch, NFCError.tagMismatch(expected: expectedUID, actual: tag.uid).message)
        }
        return try await TagCommandExecutor().execute(action, on: tag.transport)
    }

    /// The usage lines of the options every tag command takes.
    static let commonUsage = """
          --device    libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --password  NTAG21x / Ultralight EV1 password (4 bytes hex), sent before anything else
          --timeout   give up after SECONDS without a tag (exit 3)

        """

    /// Parses a tag command's arguments with `parse` (which reads its own options), then
    /// `--device`, `--timeout` and `--password`, and refuses anything else. Nil after printing
    /// `usage` for `--help`.
    static func arguments<Options>(
        _ args: [String], command: String, usage: String, flags: Set<String> = [], _ parse: (inout Arguments) throws -> Options
    ) throws -> (options: Options, reader: ReaderOptions, password: [UInt8]?)? {
        var arguments = try Arguments(args, flagNames: flags.union(["help"]))
        if arguments.flag("help") {
            Console.out(usage)
            return nil
        }
        let reader = try ReaderOptions(&arguments)
        let options = try parse(&arguments)
        let password = try Self.password(&arguments)
        try arguments.finish(optionsOnly: command)
        return (options, reader, password)
    }

    /// `--password HEX` (4 bytes), if given.
    static func password(_ arguments: inout Arguments) throws(CLIError) -> [UInt8]? {
        guard let text = arguments.option("password") else { return nil }
        guard let bytes = [UInt8](hex: text), bytes.count == 4 else {
            throw CLIError.usage("--password needs 4 bytes of hex (the NTAG21x / Ultralight EV1 PWD), got '\(text)'")
        }
        return bytes
    }

    /// A UID option (`--uid`, `--confirm`).
    static func uid(_ name: String, _ arguments: inout Arguments) throws(CLIError) -> [UInt8] {
        guard let text = arguments.option(name) else { throw CLIError.usage("--\(name) UID is required") }
        guard let bytes = [UInt8](hex: text), (4...10).contains(bytes.count) else {
            throw CLIError.usage("--\(name) needs a UID of 4 to 10 bytes in hex, got '\(text)'")
        }
        return bytes
    }
}

extension CLIError {
    /// A failed tag command: its stable code; the reader gone exits 2, the rest 1. The pages written
    /// before a failure are added to the message.
    init(_ error: CommandError) {
        var message = error.message
        if let pages = error.details.pagesWritten, !pages.isEmpty {
            message += " (pages written: " + pages.map(String.init).joined(separator: ", ") + ")"
        }
        let exitCode = error.code == .readerUnavailable ? ReaderExitStatus.usageOrReader : ReaderExitStatus.operationFailed
        self.init(code: error.code.rawValue, message: message, exitCode: exitCode)
    }
}
