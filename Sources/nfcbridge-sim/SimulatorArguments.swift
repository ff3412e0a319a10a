import PN532Sim

/// `nfcbridge-sim` command line: `--link PATH [--control PATH] [--scenario FILE] [--baud N]
/// [--time-scale F] [--trace]`.
struct SimulatorArguments {
    var linkPath: String?
    var controlPath: String?
    var scenarioPath: String?
    var baudRate: Int?
    var timeScale = 1.0
    var trace = false
    var help = false

    static let usage = """
        usage: nfcbridge-sim --link PATH [--control PATH] [--scenario FILE] [--baud N] [--time-scale F] [--trace]

          --link PATH       symlink to the emulated PN532's pty (no ':'); point libnfc at pn532_uart:PATH
          --control PATH    unix socket for the JSON control channel (docs/simulator.md)
          --scenario FILE   YAML file with tags and a timeline (config/scenarios/demo.yaml)
          --baud N          model serial line time at N baud (115200 ≈ 87 µs per byte)
          --time-scale F    multiply the chip's RF delays by F (0.05 = twenty times faster)
          --trace           print every PN532 command and client session on stderr

        Prints `ready link=… control=… pty=…` on stdout once serving; stops on SIGINT or SIGTERM.
        """

    /// Option name → what it sets. Switches take no value.
    private static let options: [String: @Sendable (inout SimulatorArguments, String) throws(SimulatorError) -> Void] = [
        "link": { $0.linkPath = $1 },
        "control": { $0.controlPath = $1 },
        "scenario": { $0.scenarioPath = $1 },
        "baud": { arguments, text throws(SimulatorError) in
            guard let value = Int(text), value > 0 else { throw .usage("--baud needs a positive number, got '\(text)'") }
            arguments.baudRate = value
        },
        "time-scale": { arguments, text throws(SimulatorError) in
            guard let value = Double(text), value >= 0, value.isFinite else {
                throw .usage("--time-scale needs a non-negative number, got '\(text)'")
            }
            arguments.timeScale = value
        },
    ]
    private static let switches: [String: @Sendable (inout SimulatorArguments) -> Void] = [
        "trace": { $0.trace = true },
        "help": { $0.help = true },
    ]

    init(_ arguments: [String]) throws(SimulatorError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw .usage("unexpected argument '\(argument)'\n\(Self.usage)") }
            var name = String(argument.dropFirst(2)), value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let set = Self.switches[name], value == nil {
                set(&self)
            } else if let set = Self.options[name] {
                if value == nil {
                    index += 1
                    guard index < arguments.count else { throw .usage("--\(name) needs a value") }
                    value = arguments[index]
                }
                try set(&self, value ?? "")
            } else {
                throw .usage("unknown option '\(argument)'\n\(Self.usage)")
            }
            index += 1
        }
        if !help && linkPath == nil { throw .usage("--link PATH is required\n\(Self.usage)") }
    }
}
