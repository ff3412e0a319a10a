import NFCBridge
import NFCCore

/// `nfcbridge write-block`: writes one raw MIFARE Classic block with a known key, checked against the
/// sector's access bits and read back — the MQTT `write_blocks` command for one block, through the
/// same executor. See docs/cli.md, section "write-block".
enum WriteBlockCommand {
    static let usage = """
        usage: nfcbridge write-block [--device CONNSTRING] --block N --data HEX --key HEX [--key-type A|B]
                                     [--allow-trailer --uid UID] [--uid UID] [--timeout SECONDS]
          --block          the block number (0–255; sector 1 starts at block 4)
          --data           the block's 16 bytes in hex
          --key            the sector's 6-byte key in hex
          --key-type       A (default) or B
          --allow-trailer  allow writing a sector trailer (keys and access bits); needs --uid
          --uid            act only on the tag with this UID (hex); any other is refused (tag_mismatch)
          Refused before writing: block 0, a trailer without --allow-trailer, inconsistent access bits
          (invalid_request), a write the sector's access bits do not grant the key (access_denied).
          --device         libnfc connstring (default: LIBNFC_DEFAULT_DEVICE / LIBNFC_DEVICE / libnfc.conf)
          --timeout        give up after SECONDS without a tag (exit 3)

        """

    /// The parsed options.
    struct Options {
        var action: CommandAction
        var uid: [UInt8]?
    }

    /// Runs `write-block` with the arguments after it.
    static func run(_ args: [String]) async throws {
        let parsed = try TagCommandRunner.arguments(args, command: "write-block", usage: usage, flags: ["allow-trailer"]) {
            arguments in try options(&arguments)
        }
        guard let parsed else { return }
        guard parsed.password == nil else { throw CLIError.usage("--password is not used by write-block (give --key)") }
        try await TagCommandRunner.run(parsed.options.action, options: parsed.reader, expectedUID: parsed.options.uid)
    }

    /// `--block`, `--data`, `--key`, `--key-type`, `--allow-trailer`, `--uid`, checked as the MQTT
    /// request is (``WriteBlocksRequest``).
    private static func options(_ arguments: inout Arguments) throws -> Options {
        guard let blockText = arguments.option("block") else { throw CLIError.usage("--block N is required") }
        guard let block = Int(blockText) else { throw CLIError.usage("--block needs a block number, got '\(blockText)'") }
        guard let data = arguments.option("data") else { throw CLIError.usage("--data HEX is required (16 bytes)") }
        guard let key = arguments.option("key") else { throw CLIError.usage("--key HEX is required (6 bytes)") }
        let keyType = arguments.option("key-type")
        let allowTrailer = arguments.flag("allow-trailer")
        let uid = arguments.option("uid") == nil ? nil : try TagCommandRunner.uid("uid", &arguments)
        var object: [String: JSONValue] = [
            "blocks": [["block": .int(Int64(block)), "data_hex": .string(data)]],
            "key": .string(key), "allow_trailer": .bool(allowTrailer),
        ]
        if let keyType { object["key_type"] = .string(keyType.uppercased()) }
        do throws(CommandError) {
            return Options(action: try WriteBlocksRequest.action(JSONFields(object), uid: uid), uid: uid)
        } catch {
            throw CLIError.input(
                error, options: ["blocks[0].data_hex": "--data", "blocks[0].block": "--block", "key_type": "--key-type", "key": "--key", "uid": "--uid"])
        }
    }
}
