import NFCBridge

/// `nfcbridge format`: NDEF-formats the first tag the reader finds (an empty message).
/// See docs/cli.md, section "format".
enum FormatCommand {
    static let usage = """
        usage: nfcbridge format [--device CONNSTRING] [--password HEX] [--timeout SECONDS]
          --device    libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --password  NTAG21x / Ultralight EV1 password (4 bytes hex)
          --timeout   give up after SECONDS without a tag (exit 3)

        """

    /// Runs `format` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let options = try ReaderOptions(&arguments)
        let password = try TagCommandRunner.password(&arguments)
        try arguments.rejectUnknown()
        guard arguments.positionals.isEmpty else { throw CLIError.usage("format takes no arguments") }
        try await TagCommandRunner.run(.format(password: password), options: options)
    }
}
