import FoundationEssentials
import Glibc
import NFCBridge
import NFCCore

/// `nfcbridge write`: writes an NDEF message to the first tag the reader finds and reads it back.
/// See docs/cli.md, section "write".
enum WriteCommand {
    static let usage = """
        usage: nfcbridge write [--device CONNSTRING] (--uri URI | --text TEXT [--lang LANG] | --ndef-hex HEX
                               | --records FILE) [--password HEX] [--timeout SECONDS]
          --uri       one URI record
          --text      one Text record, in --lang (default en)
          --ndef-hex  the NDEF message as hex
          --records   a JSON file of records ({"records":[…]}, […] or one record; `-` reads standard input),
                      in the form `nfcbridge ndef` prints

        """ + TagCommandRunner.commonUsage

    /// Runs `write` with the arguments after it.
    static func run(_ args: [String]) async throws {
        let parsed = try TagCommandRunner.arguments(args, command: "write", usage: usage) { arguments in
            try message(&arguments)
        }
        guard let parsed else { return }
        try await TagCommandRunner.run(.write(message: parsed.options, password: parsed.password), options: parsed.reader)
    }

    /// The NDEF message `--uri`, `--text` (`--lang`), `--ndef-hex` or `--records` give.
    private static func message(_ arguments: inout Arguments) throws -> [UInt8] {
        let uri = arguments.option("uri")
        let text = arguments.option("text")
        let hex = arguments.option("ndef-hex")
        let recordsFile = arguments.option("records")
        let lang = arguments.option("lang")
        guard [uri, text, hex, recordsFile].compactMap({ $0 }).count == 1 else {
            throw CLIError.usage("give exactly one of --uri, --text, --ndef-hex, --records")
        }
        if lang != nil, text == nil { throw CLIError.usage("--lang goes with --text") }
        // The records file is read like export's input: bounded, and a failure says why (io_error).
        let recordBytes = uri == nil && text == nil && hex == nil ? try DumpFile.read(recordsFile ?? "-") : []
        do throws(CommandError) {
            if let uri { return try CommandParser.message(records: JSONFields(["records": ["uri": .string(uri)]])) }
            if let text {
                return try CommandParser.message(records: JSONFields(["records": ["text": .string(text), "lang": .string(lang ?? "en")]]))
            }
            if let hex { return try CommandParser.message(hex: JSONFields(["ndef_hex": .string(hex)])) }
            return try CommandParser.message(records: JSONFields(["records": try records(file: recordsFile ?? "-", bytes: recordBytes)]))
        } catch {
            // A --records file keeps its own field names; the other options name themselves.
            guard recordsFile == nil else { throw CLIError.input(error.code.rawValue, error.message) }
            throw CLIError.input(
                error, options: ["ndef_hex": "--ndef-hex", "records[0].uri": "--uri", "records[0].text": "--text", "records[0].lang": "--lang"])
        }
    }

    /// The records of a JSON file (its `bytes`): `{"records":[…]}`, `[…]` or one record object.
    private static func records(file: String, bytes: [UInt8]) throws(CommandError) -> JSONValue {
        let name = file == "-" ? "standard input" : file
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .invalid("records", "\(name) is not UTF-8 text (JSON is UTF-8: convert it first, e.g. iconv -f latin1 -t utf-8)")
        }
        let data = Data(bytes)
        guard let json = try? JSONValue(parsing: data) else { throw .invalid("records", "\(name) is not valid JSON") }
        if let object = json.objectValue, object.keys.sorted() == ["records"], let list = object["records"] { return list }
        return json
    }
}
