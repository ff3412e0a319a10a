import NFCBridge

/// `nfcbridge format`: NDEF-formats the first tag the reader finds (an empty message).
/// See docs/cli.md, section "format".
enum FormatCommand {
    static let usage = """
        usage: nfcbridge format [--device CONNSTRING] [--password HEX] [--timeout SECONDS]

        """ + TagCommandRunner.commonUsage

    /// Runs `format` with the arguments after it.
    static func run(_ args: [String]) async throws {
        guard let parsed = try TagCommandRunner.arguments(args, command: "format", usage: usage, { _ in () }) else { return }
        try await TagCommandRunner.run(.format(password: parsed.password), options: parsed.reader)
    }
}
