import NFCBridge
import NFCCore

/// `nfcbridge lock`: makes the NDEF data of the tag with `--uid` read-only for good.
/// See docs/cli.md, section "lock".
enum LockCommand {
    static let usage = """
        usage: nfcbridge lock [--device CONNSTRING] --uid UID --confirm UID [--password HEX] [--timeout SECONDS]
          IRREVERSIBLE: the tag's NDEF data can never be changed again.
          --uid       the UID of the tag to lock (hex); any other tag is refused (tag_mismatch)
          --confirm   the same UID again
          --device    libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --password  NTAG21x / Ultralight EV1 password (4 bytes hex)
          --timeout   give up after SECONDS without a tag (exit 3)

        """

    /// Runs `lock` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let options = try ReaderOptions(&arguments)
        let uid = try TagCommandRunner.uid("uid", &arguments)
        let confirm = try TagCommandRunner.uid("confirm", &arguments)
        guard confirm == uid else {
            throw CLIError.usage("--confirm (\(confirm.hexString)) must repeat --uid (\(uid.hexString))")
        }
        let password = try TagCommandRunner.password(&arguments)
        try arguments.rejectUnknown()
        guard arguments.positionals.isEmpty else { throw CLIError.usage("lock takes no arguments") }
        try await TagCommandRunner.run(.lock(uid: uid, password: password), options: options, expectedUID: uid)
    }
}
