import Foundation
import NFCBridge
import NFCCore

/// `nfcbridge write`: writes an NDEF message to the first tag the reader finds and reads it back.
/// See docs/cli.md, section "write".
enum WriteCommand {
    static let usage = """
        usage: nfcbridge write [--device CONNSTRING] (--uri URI | --text TEXT [--lang LANG] | --ndef-hex HEX
                               | --records FILE) [--password HEX] [--timeout SECONDS]
          --device    libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --uri       one URI record
          --text      one Text record, in --lang (default en)
          --ndef-hex  the NDEF message as hex
          --records   a JSON file of records ({"records":[…]}, […] or one record; `-` reads standard input),
                      in the form `nfcbridge ndef` prints
          --password  NTAG21x / Ultralight EV1 password (4 bytes hex), sent before writing
          --timeout   give up after SECONDS without a tag (exit 3)

        """

    /// Runs `write` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let options = try ReaderOptions(&arguments)
        let uri = arguments.option("uri")
        let text = arguments.option("text")
        let hex = arguments.option("ndef-hex")
        let recordsFile = arguments.option("records")
        let lang = arguments.option("lang")
        guard [uri, text, hex, recordsFile].compactMap({ $0 }).count == 1 else {
            throw CLIError.usage("give exactly one of --uri, --text, --ndef-hex, --records")
        }
        if lang != nil, text == nil { throw CLIError.usage("--lang goes with --text") }
        let message: [UInt8]
        do throws(CommandError) {
            if let uri {
                message = try CommandParser.message(records: ["uri": .string(uri)])
            } else if let text {
                message = try CommandParser.message(records: ["text": .string(text), "lang": .string(lang ?? "en")])
            } else if let hex {
                message = try CommandParser.message(hex: .string(hex))
            } else {
                message = try CommandParser.message(records: try records(file: recordsFile ?? "-"))
            }
        } catch {
            throw CLIError.input(error.code.rawValue, error.message)
        }
        let password = try TagCommandRunner.password(&arguments)
        try arguments.rejectUnknown()
        guard arguments.positionals.isEmpty else { throw CLIError.usage("write takes no arguments") }
        try await TagCommandRunner.run(.write(message: message, password: password), options: options)
    }

    /// The records of a JSON file: `{"records":[…]}`, `[…]` or one record object.
    private static func records(file: String) throws(CommandError) -> JSONValue {
        let data: Data
        if file == "-" {
            data = Console.readStandardInput()
        } else {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw CommandError(.invalidRequest, "cannot read \(file)")
            }
            data = contents
        }
        guard let json = try? JSONValue(parsing: data) else { throw .invalid("records", "\(file) is not valid JSON") }
        if let object = json.objectValue, object.keys.sorted() == ["records"], let list = object["records"] { return list }
        return json
    }
}
