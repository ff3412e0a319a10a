import FoundationEssentials
import Glibc
import LibNFCReader
import NFCCore
import PCSCReader

/// `nfcbridge readers [--probe] [--json]`: the NFC devices libnfc knows, then the PC/SC readers pcscd
/// knows (`pcsc:<reader name>`), one connstring per line. See docs/cli.md, section "readers".
enum ReadersCommand {
    static let usage = """
        usage: nfcbridge readers [--probe] [--json]
          Lists the connstrings libnfc knows: LIBNFC_DEVICE (the only one when set), else
          LIBNFC_DEFAULT_DEVICE and libnfc.conf / devices.d, then autoscan (LIBNFC_AUTO_SCAN=false
          turns it off); then the PC/SC readers pcscd knows, as pcsc:<reader name> (pcsc:<index>
          names the same reader by its place in that list).
          --probe  open each device and print its chip and firmware
          --json   one JSON object per line: {"connstring":…[,"name":…,"firmware":…][,"profile":…,"capabilities":[…]]}
                   (PC/SC readers whose name a profile knows: docs/readers.md)

        """

    /// One line of `readers --json`.
    struct Line: Codable {
        var connstring: String
        var name: String?
        var firmware: String?
        /// PC/SC: the reader profile its name picks (docs/readers.md); absent for a name no profile knows
        /// (the agent then finds it from the reader's answers once a card is present).
        var profile: String?
        /// PC/SC: what that profile offers.
        var capabilities: [String]?
    }

    /// Runs `readers` with the arguments after it.
    static func run(_ args: [String]) async throws {
        var arguments = try Arguments(args, flagNames: ["probe", "json", "help"])
        if arguments.flag("help") {
            Console.out(usage)
            return
        }
        let probe = arguments.flag("probe"), json = arguments.flag("json")
        try arguments.finish(optionsOnly: "readers")

        var connstrings = try await LibNFC.connstrings()
        // pcscd not running is no error here: it only means no PC/SC reader.
        var pcscProblem: String?
        do {
            connstrings += try await PCSC.readerNames().map { "\(PCSCDevice.connstringPrefix):\($0)" }
        } catch let error as NFCError {
            pcscProblem = error.message
        }
        guard !connstrings.isEmpty else {
            throw CLIError.reader(
                .readerUnavailable("no NFC device found (set LIBNFC_DEVICE or LIBNFC_DEFAULT_DEVICE, or configure libnfc.conf; "
                    + "PC/SC: \(pcscProblem ?? "pcscd knows no reader"))"))
        }
        var failures = 0
        for connstring in connstrings {
            var line = Line(connstring: connstring)
            if PCSCDevice.accepts(connstring), let selector = PCSCDevice.selector(of: connstring),
               let profile = PCSCReaderProfile.matching(readerName: selector) {
                line.profile = profile.model.rawValue
                line.capabilities = profile.capabilities.names
            }
            if probe {
                let device: any ReaderDevice =
                    PCSCDevice.accepts(connstring) ? PCSCDevice(connstring: connstring, shareMode: .shared) : LibNFCDevice(connstring: connstring)
                do {
                    let info = try await device.open()
                    line.name = info.name
                    line.firmware = info.firmware
                    await device.close()
                } catch let error as NFCError {
                    failures += 1
                    Console.report(CLIError.reader(error))
                    continue
                }
            }
            Console.out(json ? try encode(line) + "\n" : text(line) + "\n")
        }
        // Every device was reported (or its error printed); the exit status tells whether all answered.
        if failures > 0 {
            throw CLIError(
                code: NFCError.readerUnavailable("").code,
                message: "\(failures) of \(connstrings.count) devices could not be opened",
                exitCode: ReaderExitStatus.usageOrReader)
        }
    }

    private static func text(_ line: Line) -> String {
        var text = line.connstring
        if let firmware = line.firmware { text += "\t\(firmware)" }
        if let profile = line.profile, line.firmware != nil { text += "\t\(profile)" }
        return text
    }

    private static func encode(_ line: Line) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(line), as: UTF8.self)
    }
}
