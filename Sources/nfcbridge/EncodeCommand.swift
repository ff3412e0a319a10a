import FoundationEssentials
import Glibc
import NFCBridge
import NFCCore

/// `nfcbridge encode`: an encode job on the CLI — each next tag gets the next serial in its NDEF
/// message, is written, verified (and locked), journalled in the state directory. Resumable: the same
/// command (or `--job ID` alone) continues where it stopped. See docs/tagging-station.md.
enum EncodeCommand {
    static let usage = """
        usage: nfcbridge encode [--device CONNSTRING] --job ID [--state-dir DIR]
                                [(--uri TEMPLATE | --text TEMPLATE [--lang LANG] | --records FILE)
                                 (--serials START:COUNT | --serial-list FILE)
                                 [--lock] [--protect KEY --auth0 PAGE [--protect-reads]]
                                 [--policy blank|overwrite] [--on-failure retry|spend] [--retries N]]
                                [--keys FILE] [--timeout SECONDS]
          --job         the job's name (its journal is DIR/jobs/ID.journal); given alone, resumes it
          --state-dir   where the journal is kept (default /var/lib/nfcbridge, the agent's state_dir)
          --uri, --text one URI / Text record; placeholders {serial}, {serial:06d} (d, x, X), {uid}, {n}
          --records     a JSON file of records ([{"uri":…},{"text":…,"lang":…}]) with placeholders
          --serials     START:COUNT, e.g. 1000:50 for 1000 … 1049
          --serial-list a file with one serial per line (digits only: a number)
          --lock        lock each tag after the verified write (IRREVERSIBLE)
          --protect     set the password of the keys file's ntag_password entry KEY on each tag
                        (NTAG21x, Ultralight EV1) and protect it from page --auth0 PAGE on (4: every
                        user page); --protect-reads: reads need the password too (PROT)
          --keys        the keys file (docs/keys.md; mode 0600, yours) holding KEY; needed with
                        --protect, also when resuming such a job
          --policy      blank (default): only tags with an empty NDEF message; overwrite: any tag
          --on-failure  retry (default): write the tag again, --retries times (default 2), then spend
                        the serial; spend: spend it at once
          --timeout     stop (exit 3, resumable) after SECONDS without a new tag
          One JSON line per tag (job, n, serial, uid, result, code, message, resumed, attempts, ms),
          then the job's counts. Exit 0 when every serial is resolved.

        """

    /// Runs `encode` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["help", "lock", "protect-reads"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let reader = try ReaderOptions(&arguments)
        guard let id = arguments.option("job") else { throw CLIError.usage("--job ID is required") }
        let stateDirectory = arguments.option("state-dir") ?? AgentConfiguration(id: "nfcbridge").stateDirectory
        let spec = try self.spec(id: id, &arguments)
        let keysFile = arguments.option("keys")
        try arguments.finish(optionsOnly: "encode")
        let passwords: [Type2Password]
        do throws(ConfigurationError) {
            passwords = try keysFile.map { path throws(ConfigurationError) in try AuthKeysFile.load(path).families.type2Keys.passwords } ?? []
        } catch {
            throw CLIError(code: error.code.rawValue, message: error.message, exitCode: ReaderExitStatus.usageOrReader)
        }
        if let spec {
            do throws(CommandError) {
                _ = try EncodeStation.protection(spec, passwords: passwords)
            } catch {
                throw CLIError(code: error.code.rawValue, message: error.message, exitCode: ReaderExitStatus.usageOrReader)
            }
        }

        let opened: (journal: JobJournal, ledger: JobLedger, interrupted: [Int])
        do {
            opened = try await JobJournal.open(stateDirectory: stateDirectory, job: id, spec: spec)
        } catch {
            throw CLIError(code: error.code.rawValue, message: error.message,
                           exitCode: error.code == .invalidRequest ? ReaderExitStatus.usageOrReader : ReaderExitStatus.operationFailed)
        }
        let ledger: JobLedger
        do {
            ledger = try await reader.withReader { device in
                var settings = AgentConfiguration.ReaderSettings()
                settings.modulations = reader.modulations
                let access = TimedTagAccess(base: DeviceTagAccess(device: device, reader: settings), timeout: reader.timeoutDuration)
                let station = EncodeStation(access: access, journal: opened.journal, passwords: passwords)
                return try await station.run(opened.ledger, interrupted: opened.interrupted, reporting: reporting)
            }
        } catch let error as TimedTagAccess.NoTag {
            _ = error
            throw CLIError.noTag(after: reader.timeout ?? 0, device: reader.deviceLabel)
        } catch let error as CommandError {
            throw CLIError(error)
        } catch {
            throw CLIError.reader(failure: error)
        }
        _ = ledger
    }

    /// Prints each tag's result and the final counts as JSON lines.
    static let reporting = EncodeStation.Reporting(
        tag: { result in print(result) },
        state: { state in
            if state.state != .running, state.state != .paused { print(state) }
        })

    private static func print(_ value: some Encodable) {
        guard let json = try? JSONValueEncoder().encode(value) else { return }
        Console.out(json.jsonString + "\n")
    }

    /// The job's spec from the options; nil when none of them is given (resume).
    private static func spec(id: String, _ arguments: inout Arguments) throws -> EncodeJobSpec? {
        let uri = arguments.option("uri")
        let text = arguments.option("text")
        let lang = arguments.option("lang")
        let recordsFile = arguments.option("records")
        let range = arguments.option("serials")
        let listFile = arguments.option("serial-list")
        let lock = arguments.flag("lock")
        let protectKey = arguments.option("protect")
        let auth0 = try arguments.number("auth0")
        let protectReads = arguments.flag("protect-reads")
        let policy = arguments.option("policy")
        let onFailure = arguments.option("on-failure")
        let retries = try arguments.number("retries")
        let templates = [uri, text, recordsFile].compactMap { $0 }
        let any = !templates.isEmpty || range != nil || listFile != nil || lock || policy != nil || onFailure != nil || retries != nil
            || protectKey != nil
        guard any else { return nil }
        guard templates.count == 1 else { throw CLIError.usage("give exactly one of --uri, --text, --records (or none, to resume)") }
        guard (range == nil) != (listFile == nil) else { throw CLIError.usage("give exactly one of --serials, --serial-list") }
        if lang != nil, text == nil { throw CLIError.usage("--lang goes with --text") }
        if (protectKey == nil) != (auth0 == nil) { throw CLIError.usage("--protect KEY and --auth0 PAGE go together") }
        if protectReads, protectKey == nil { throw CLIError.usage("--protect-reads goes with --protect") }
        let recordBytes = templates.count == 1 && recordsFile != nil ? try DumpFile.read(recordsFile ?? "-") : []
        let listBytes = try listFile.map { try DumpFile.read($0) } ?? []
        do throws(CommandError) {
            let records: JSONValue
            if let uri {
                records = .array([.object(["uri": .string(uri)])])
            } else if let text {
                records = .array([.object(["text": .string(text), "lang": .string(lang ?? "en")])])
            } else {
                guard let json = try? JSONValue(parsing: Data(recordBytes)) else { throw .invalid("records", "\(recordsFile ?? "-") is not valid JSON") }
                records = json.objectValue?["records"] ?? json
            }
            var object: [String: JSONValue] = ["job": .string(id), "template": records]
            if let range {
                let parts = range.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let start = Int64(parts[0]), let count = Int64(parts[1]) else {
                    throw .invalid("serials", "--serials is START:COUNT, e.g. 1000:50")
                }
                object["serials"] = .object(["start": .int(start), "count": .int(count)])
            } else {
                object["serials"] = .object(["list": SerialSource.listFile(listBytes)])
            }
            let steps = ["write", "verify"] + (lock ? ["lock"] : []) + (protectKey == nil ? [] : ["protect"])
            object["steps"] = .array(steps.map(JSONValue.string))
            if let protectKey, let auth0 {
                object["protect"] = .object([
                    "key": .string(protectKey), "auth0": auth0.rounded() == auth0 ? .int(Int64(auth0)) : .double(auth0),
                    "protect_reads": .bool(protectReads),
                ])
            }
            var policyObject: [String: JSONValue] = [:]
            if let policy { policyObject["tags"] = .string(policy) }
            if let onFailure { policyObject["on_failure"] = .string(onFailure) }
            if let retries { policyObject["retries"] = retries.rounded() == retries ? .int(Int64(retries)) : .double(retries) }
            object["policy"] = .object(policyObject)
            return try EncodeJobSpec(json: object)
        } catch {
            throw CLIError.input(error, options: [
                "template": "--uri/--text/--records", "serials": "--serials/--serial-list", "serials.count": "--serials",
                "serials.start": "--serials", "policy.tags": "--policy", "policy.on_failure": "--on-failure",
                "policy.retries": "--retries", "job": "--job", "protect.key": "--protect", "protect.auth0": "--auth0",
            ])
        }
    }
}

/// The reader's ``DeviceTagAccess`` with `--timeout`: no new tag within it ends the job (resumable).
struct TimedTagAccess: TagAccess {
    struct NoTag: Error {}

    let base: DeviceTagAccess
    let timeout: Duration?

    func presentTags() async throws -> [PresentTag] { try await base.presentTags() }

    func nextTag() async throws -> PresentTag {
        guard let timeout else { return try await base.nextTag() }
        guard let tag = try await base.firstTag(within: timeout) else { throw NoTag() }
        return tag
    }

    func withExclusiveAccess<Result: Sendable>(
        to tag: PresentTag, _ body: @Sendable (any TagTransport) async throws -> Result
    ) async throws -> Result {
        try await base.withExclusiveAccess(to: tag, body)
    }

    func waitForRemoval(of tag: PresentTag) async throws { try await base.waitForRemoval(of: tag) }
}
