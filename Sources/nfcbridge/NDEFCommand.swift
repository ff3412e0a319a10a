import FoundationEssentials
import Glibc
import NFCCore

/// `nfcbridge ndef decode|encode`: NDEF message hex ⇄ the JSON form of NFCCore's ``NDEFJSON``.
/// Offline; touches no reader. See docs/cli.md, section "ndef".
enum NDEFCommand {
    /// The most standard input read (1 MiB): the hex text or JSON of the largest NDEF file a tag
    /// holds (a MIFARE DESFire EV2 32K's: 32 KiB) is far shorter.
    static let inputLimit = 1 << 20

    static let usage = """
        usage: nfcbridge ndef decode [--relaxed] HEX...   (HEX may hold spaces; - reads it from stdin)
               nfcbridge ndef encode [-]                  (reads {"records":[…]} JSON on stdin)

        """

    /// Runs `ndef` with the arguments after it.
    static func run(_ args: [String]) async throws {
        guard let action = args.first else {
            throw CLIError.usage("ndef needs an action: decode or encode")
        }
        if ["--help", "-h", "help"].contains(action) {
            Console.out(usage)
            return
        }
        var arguments = try Arguments(Array(args.dropFirst()), flagNames: ["relaxed", "help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        switch action {
        case "decode":
            let leniency: NDEFLeniency = arguments.flag("relaxed") ? .relaxed : .strict
            try arguments.rejectUnknown()
            let bytes = try readHex(arguments.positionals)
            Console.out(NDEFJSON.encode(try NDEFMessage(bytes: bytes, leniency: leniency)) + "\n")
        case "encode":
            try arguments.rejectUnknown()
            guard arguments.positionals.isEmpty || arguments.positionals == ["-"] else {
                throw CLIError.usage("ndef encode takes no arguments: it reads the JSON on stdin")
            }
            let records = try NDEFJSON.decodeRecords(Data(Console.readStandardInput(limit: inputLimit, what: "no NDEF message's JSON is that large")))
            // No bytes is no NDEF message: one is one or more records (NFC Forum NDEF 1.0).
            guard !records.isEmpty else {
                throw NFCError.invalidArgument(
                    #"records: an NDEF message holds at least one record; the empty message is one empty record, {"tnf":0} (D00000)"#)
            }
            Console.out(try NDEFMessage(records: records).bytes.hexString + "\n")
        default:
            throw CLIError.usage("unknown ndef action '\(action)': use decode or encode")
        }
    }

    /// The message bytes from the positionals (joined, so spaces may split them) or, for `-`, stdin.
    private static func readHex(_ positionals: [String]) throws -> [UInt8] {
        let text: String
        switch positionals {
        case []:
            throw CLIError.usage("ndef decode needs the message as HEX, or - to read it from stdin")
        case ["-"]:
            text = String(textFile: try Console.readStandardInput(limit: inputLimit, what: "no NDEF message's hex is that large"))
        default:
            guard !positionals.contains("-") else {
                throw CLIError.usage("ndef decode: give HEX or -, not both")
            }
            text = positionals.joined(separator: " ")
        }
        guard let bytes = [UInt8](hex: text) else {
            throw NFCError.invalidArgument("HEX: not valid hex (an odd number of digits or a non-hex character)")
        }
        return bytes
    }
}
