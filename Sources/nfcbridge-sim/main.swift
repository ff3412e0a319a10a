import Foundation
import PN532Sim

/// nfcbridge-sim: an emulated PN532 on a pty for libnfc's pn532_uart driver, or the card of
/// vsmartcard's vpcd reader for pcscd (docs/simulator.md).

func fail(_ error: SimulatorError) -> Never {
    if case let .usage(text) = error {
        FileHandle.standardError.write(Data((text + "\n").utf8))
        exit(2)
    }
    let escaped = error.message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    FileHandle.standardError.write(Data("{\"error\":{\"code\":\"\(error.code)\",\"message\":\"\(escaped)\"}}\n".utf8))
    exit(1)
}

let arguments: SimulatorArguments
do {
    arguments = try SimulatorArguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail(error)
}
if arguments.help {
    print(SimulatorArguments.usage)
    exit(0)
}

// SIGINT/SIGTERM are taken with sigwait on this thread; block them before any thread starts so
// none of the simulator's threads gets them.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
signal(SIGPIPE, SIG_IGN)

let log: (@Sendable (String) -> Void)? = arguments.trace
    ? { @Sendable line in FileHandle.standardError.write(Data((line + "\n").utf8)) } : nil
let stop: () -> Void
do {
    let scenario = try arguments.scenarioPath.map { path throws(SimulatorError) in try Scenario.load(path: path) } ?? Scenario()
    if let vpcd = arguments.vpcd {
        let simulator = try VPCDSimulator(configuration: VPCDSimulator.Configuration(
            host: vpcd.host, port: vpcd.port, controlPath: arguments.controlPath, scenario: scenario,
            profile: PCSCReaderEmulation.Profile(
                answersATQAAndSAK: arguments.answersATQAAndSAK, model: arguments.pcscReader ?? .part3Transparent), log: log))
        simulator.start()
        FileHandle.standardOutput.write(Data("ready vpcd=\(vpcd.host):\(vpcd.port) control=\(simulator.controlPath ?? "-")\n".utf8))
        stop = simulator.stop
    } else {
        let simulator = try Simulator(configuration: Simulator.Configuration(
            linkPath: arguments.linkPath ?? "", controlPath: arguments.controlPath, scenario: scenario,
            timing: PN532Timing(baudRate: arguments.baudRate, timeScale: arguments.timeScale), log: log,
            linkLoss: arguments.dropOneIn.map { LinkLoss(oneIn: $0, seed: arguments.dropSeed) },
            answersAutoPoll: !arguments.withoutAutoPoll))
        simulator.start()
        let ready = "ready link=\(simulator.emulator.linkPath) control=\(simulator.controlPath ?? "-") pty=\(simulator.emulator.slavePath)\n"
        FileHandle.standardOutput.write(Data(ready.utf8))
        stop = simulator.stop
    }
} catch {
    fail(error)
}

var received: Int32 = 0
sigwait(&stopSignals, &received)
stop()
exit(0)
