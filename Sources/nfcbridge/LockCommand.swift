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

        """ + TagCommandRunner.commonUsage

    /// Runs `lock` with the arguments after it.
    static func run(_ args: [String]) async throws {
        let parsed = try TagCommandRunner.arguments(args, command: "lock", usage: usage) { arguments in
            let uid = try TagCommandRunner.uid("uid", &arguments)
            let confirm = try TagCommandRunner.uid("confirm", &arguments)
            guard confirm == uid else {
                throw CLIError.usage("--confirm (\(confirm.hexString)) must repeat --uid (\(uid.hexString))")
            }
            return uid
        }
        guard let parsed else { return }
        try await TagCommandRunner.run(
            .lock(uid: parsed.options, password: parsed.password), options: parsed.reader, expectedUID: parsed.options)
    }
}
