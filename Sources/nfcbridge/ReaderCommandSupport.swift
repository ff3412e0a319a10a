import FoundationEssentials
import Glibc
import LibNFCReader
import NFCBridge
import NFCCore
import PCSCReader

/// Exit statuses of the commands that use a reader (`readers`, `scan`, `dump`); docs/cli.md,
/// "Exit codes", is the user-facing copy of this table.
enum ReaderExitStatus {
    /// Done.
    static let ok: Int32 = 0
    /// The tag or its data failed (removed mid-operation, refused, unreadable) or a file could
    /// not be written.
    static let operationFailed: Int32 = 1
    /// Wrong usage, or the reader cannot be opened (the message names the connstring).
    static let usageOrReader: Int32 = 2
    /// No tag came before `--timeout` ran out.
    static let noTag: Int32 = 3
}

extension CLIError {
    /// An NFC error of a reader command: a reader that cannot be reached exits 2, the rest 1.
    static func reader(_ error: NFCError) -> CLIError {
        switch error {
        case .readerUnavailable, .readerUnresponsive: return CLIError(error, exitCode: ReaderExitStatus.usageOrReader)
        default: return CLIError(error)
        }
    }

    /// A reader command's failure as the CLI reports it: an ``NFCError`` as ``reader(_:)`` says,
    /// the cancellation a signal caused as `user_canceled`, anything else unchanged.
    static func reader(failure error: any Error) -> any Error {
        if let error = error as? NFCError { return reader(error) }
        if error.isNFCCancellation { return reader(.userCanceled) }
        return error
    }

    /// An error opening `connstring`: for a USB driver libnfc only says nothing answered, so the
    /// message says where such a reader usually is instead (unplugged, or held by pcscd or the
    /// kernel's NFC modules).
    static func reader(_ error: NFCError, opening connstring: String?) -> CLIError {
        var cliError = reader(error)
        if case .readerUnavailable = error, let connstring, let parsed = try? Connstring(connstring), parsed.bus == .usb {
            cliError.message = "The reader is not available: \(connstring): no \(parsed.driver) reader answered on USB "
                + "(is it plugged in? pcscd or the kernel's pn533_usb module may hold it: stop pcscd, blacklist pn533_usb, "
                + "see /etc/modprobe.d/nfcbridge-blacklist.conf)"
        }
        return cliError
    }

    /// No tag before the timeout: exit 3.
    static func noTag(after seconds: Double, device: String) -> CLIError {
        CLIError(
            code: "no_tag", message: "No tag came within \(seconds) s on \(device)",
            exitCode: ReaderExitStatus.noTag)
    }
}

/// The options every reader command shares, and opening the reader they name.
struct ReaderOptions {
    /// `--device CONNSTRING`; nil: libnfc's default device (`LIBNFC_DEFAULT_DEVICE`, `LIBNFC_DEVICE`,
    /// libnfc.conf).
    var connstring: String?
    /// `--timeout SECONDS`: how long to wait for a tag; nil waits until one comes.
    var timeout: Double?

    /// Reads `--device` and `--timeout` from `arguments`.
    init(_ arguments: inout Arguments) throws(CLIError) {
        connstring = arguments.option("device")
        if let connstring, connstring.isEmpty { throw CLIError.usage("--device needs a connstring") }
        if let connstring { _ = try Connstring(connstring) }
        timeout = try arguments.number("timeout")
    }

    /// The connstring for messages.
    var deviceLabel: String { connstring ?? "the default libnfc device" }

    /// True when `--device` names a PC/SC reader (`pcsc`, `pcsc:<reader name or index>`).
    var usesPCSC: Bool { connstring.map(PCSCDevice.accepts) ?? false }

    /// What the one-shot commands poll for: every PN53x modulation, and ISO 15693 on a PC/SC reader;
    /// the technology the last command found first (``PollHint``).
    var modulations: [Modulation] {
        PollHint.ordered(usesPCSC ? ScanCommand.modulations + [.iso15693] : ScanCommand.modulations)
    }

    /// Opens the reader, runs `body` with it and closes it (field off) however `body` ended, all in
    /// one task that SIGINT/SIGTERM cancel (``Interruption``) and that runs on the device's own thread
    /// where it has one: the open, the tag's exchanges and the close then follow each other without
    /// a thread switch between them (issue 25). A reader that cannot be opened exits 2 with a message
    /// naming it; `body`'s errors come back as thrown.
    func withReader<T: Sendable>(_ body: @escaping @Sendable (any ReaderDevice) async throws -> T) async throws -> T {
        let device = ReaderBackendChoice.device(connstring: connstring, backend: .auto, shareMode: .exclusive)
        let connstring = self.connstring
        return try await Interruption.run(aborting: device) {
            do {
                _ = try await device.open()
            } catch let error as NFCError {
                throw CLIError.reader(error, opening: connstring)
            }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(device))
            } catch {
                result = .failure(error)
            }
            await device.close()
            return try result.get()
        }
    }

    /// The first tag `device` finds (any modulation ``ScanCommand/modulations`` lists) before
    /// `--timeout` runs out — with `uid`, the tag with that UID when it is among several in the
    /// field; no tag in time exits 3.
    func firstTag(on device: any ReaderDevice, uid: [UInt8]? = nil) async throws -> PresentTag {
        var reader = AgentConfiguration.ReaderSettings()
        reader.modulations = modulations
        let access = DeviceTagAccess(device: device, reader: reader)
        guard let tag = try await access.firstTag(within: timeoutDuration, uid: uid) else {
            throw CLIError.noTag(after: timeout ?? 0, device: deviceLabel)
        }
        PollHint.remember(tag.transport.target.modulation)
        return tag
    }

    /// `--timeout` as a duration.
    var timeoutDuration: Duration? {
        timeout.map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// The deadline `--timeout` sets, from now.
    func deadline() -> ContinuousClock.Instant? {
        timeoutDuration.map { ContinuousClock.now.advanced(by: $0) }
    }
}

/// SIGINT and SIGTERM end a reader command cleanly: the poll is aborted and the work task
/// cancelled, so the reader is closed (field off) before the process exits.
enum Interruption {
    /// Runs `body` in a task that SIGINT/SIGTERM cancel (after aborting `device`'s poll). The task
    /// prefers the device's thread (``ReaderDevice/taskExecutor``): a one-shot command's exchanges
    /// then run there one after another, without two thread switches each (issue 25).
    static func run<T: Sendable>(
        aborting device: any ReaderDevice, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let task = Task(executorPreference: device.taskExecutor) { try await body() }
        return try await StopSignals.handling(with: { _ in
            device.abort()
            task.cancel()
        }) {
            try await task.value
        }
    }
}

/// Which backend drives a reader: `reader.backend` and the connstring (docs/cli.md, "Backends").
enum ReaderBackendChoice {
    /// The backend `backend` and `connstring` select: `pcsc` always PC/SC, `libnfc` always libnfc, `auto`
    /// PC/SC for a `pcsc` / `pcsc:…` connstring and libnfc otherwise (no connstring: libnfc's default device).
    static func usesPCSC(connstring: String?, backend: AgentConfiguration.ReaderBackend) -> Bool {
        switch backend {
        case .pcsc: true
        case .libnfc: false
        case .auto: connstring.map(PCSCDevice.accepts) ?? false
        }
    }

    /// The device for `connstring` on the selected backend. With `reader.backend: pcsc` a connstring
    /// without the `pcsc:` prefix is taken as the reader's name (or index). `autoPoll`: a PN532 on
    /// libnfc polls by itself while the field is empty (``LibNFCConfiguration/autoPoll``; the agent).
    static func device(
        connstring: String?, backend: AgentConfiguration.ReaderBackend, shareMode: AgentConfiguration.PCSCShareMode,
        autoPoll: Bool = false
    ) -> any ReaderDevice {
        guard usesPCSC(connstring: connstring, backend: backend) else {
            return LibNFCDevice(connstring: connstring, configuration: LibNFCConfiguration(autoPoll: autoPoll))
        }
        let mode: PCSCShareMode = shareMode == .shared ? .shared : .exclusive
        guard let connstring else { return PCSCDevice(reader: nil, shareMode: mode) }
        if PCSCDevice.accepts(connstring) { return PCSCDevice(connstring: connstring, shareMode: mode) }
        return PCSCDevice(reader: connstring, shareMode: mode)
    }

    /// Why `connstring` cannot go with `backend`: a `pcsc:` connstring with `reader.backend: libnfc`
    /// (Debian's libnfc has no pcsc driver); nil when they fit.
    static func mismatch(connstring: String?, backend: AgentConfiguration.ReaderBackend) -> String? {
        guard backend == .libnfc, let connstring, PCSCDevice.accepts(connstring) else { return nil }
        return "'\(connstring)' is a PC/SC reader but reader.backend is libnfc (set reader.backend: pcsc or auto)"
    }
}
