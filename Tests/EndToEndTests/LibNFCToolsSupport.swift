import Foundation
import Testing
import TestSupport

/// Debian's libnfc tools (libnfc-bin, libnfc-examples) driving nfcbridge-sim through
/// `pn532_uart:<link>`. One simulator per test; the suites run one test at a time so that
/// libnfc's 300–500 ms timeouts are not starved on a small machine.
@Suite(.serialized) enum LibNFCToolsTests {}

/// Shared bits of the LibNFCTools*Tests: Debian's libnfc tools run against `nfcbridge-sim`.
enum LibNFCTools {
    /// Where Debian's libnfc-bin / libnfc-examples put the tools.
    static func path(_ tool: String) -> String { "/usr/bin/\(tool)" }

    /// Runs a tool against `simulator` to completion.
    static func run(_ tool: String, _ arguments: [String], on simulator: SimulatorProcess, input: String? = nil)
        throws -> ProcessResult
    {
        try runProcess(path(tool), arguments, input: input.map { Data($0.utf8) }, environment: simulator.libnfcEnvironment)
    }

    /// The `dump` reply's memory as bytes.
    static func memory(of id: String, on simulator: SimulatorProcess) throws -> [UInt8] {
        let reply = try simulator.control(["cmd": "dump", "id": id])
        guard reply["ok"] as? Bool == true, let hex = reply["memory"] as? String else {
            throw SimulatorProcess.Failure(description: "dump \(id) failed: \(reply)")
        }
        return bytes(hex: hex)
    }

    /// Uppercase hex without separators → bytes.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    /// A scratch file path inside the simulator's folder.
    static func file(_ name: String, in simulator: SimulatorProcess) -> String { simulator.directory + "/" + name }
}
