import PN532Sim

/// `nfcbridge-sim` command line: `--link PATH [--control PATH] [--scenario FILE] [--baud N]
/// [--time-scale F] [--trace]`, or `--vpcd HOST:PORT` instead of `--link` for the PC/SC card.
struct SimulatorArguments {
    var linkPath: String?
    /// `--vpcd`: where vsmartcard's vpcd listens.
    var vpcd: (host: String, port: Int)?
    /// `--pcsc-get-data-atqa-sak`: the PC/SC reader answers FF CA 02/03 (ATQA, SAK).
    var answersATQAAndSAK = false
    /// `--pcsc-reader MODEL`: the PC/SC reader the vpcd card's answers come from.
    var pcscReader: PCSCReaderModel?
    var controlPath: String?
    var scenarioPath: String?
    var baudRate: Int?
    var timeScale = 1.0
    /// `--drop-one-in N`: drop one byte in N on the pty, both ways (``LinkLoss``).
    var dropOneIn: UInt64?
    /// `--drop-seed S`: the seed of the drops (default 1).
    var dropSeed: UInt64 = 1
    /// `--without-autopoll`: the chip answers InAutoPoll with the syntax-error frame.
    var withoutAutoPoll = false
    var trace = false
    var help = false

    static let usage = """
        usage: nfcbridge-sim --link PATH [--control PATH] [--scenario FILE] [--baud N] [--time-scale F]
                            [--without-autopoll] [--trace]
               nfcbridge-sim --vpcd HOST:PORT [--control PATH] [--scenario FILE] [--pcsc-reader MODEL]
                             [--pcsc-get-data-atqa-sak] [--trace]

          --link PATH       symlink to the emulated PN532's pty (no ':'); point libnfc at pn532_uart:PATH
          --vpcd HOST:PORT  be the card of vsmartcard's vpcd reader in pcscd (vpcd listens there; IPv4 or
                            localhost): connected while a tag lies in the field, a PC/SC part 3 reader's answers
          --pcsc-reader MODEL  with --vpcd: the reader's command set, from its manual: part3-transparent (the
                            default), part3, acr122u, acr1252u, acr1552u (docs/simulator.md)
          --pcsc-get-data-atqa-sak  with --vpcd: answer FF CA 02 00 (ATQA) and FF CA 03 00 (SAK), as some readers do
          --control PATH    unix socket for the JSON control channel (docs/simulator.md)
          --scenario FILE   YAML file with tags and a timeline (config/scenarios/demo.yaml)
          --baud N          model serial line time at N baud (115200 ≈ 87 µs per byte)
          --time-scale F    multiply the chip's RF delays by F (0.05 = twenty times faster; --vpcd models no delays)
          --drop-one-in N   drop each byte on the pty (both ways) with probability 1/N: a lossy serial line
          --drop-seed S     seed of those drops (default 1): the same seed drops the same bytes
          --without-autopoll  a chip without InAutoPoll (UM0701-02 §7.3.13; PN531 and PN533 lack it): it
                            answers the syntax-error frame, so a host's own polling loop is what finds tags
          --trace           print every PN532 command (--vpcd: every APDU) and client session on stderr

        Prints `ready link=… control=… pty=…` (--vpcd: `ready vpcd=HOST:PORT control=…`) on stdout once
        serving; stops on SIGINT or SIGTERM.
        """

    /// Option name → what it sets. Switches take no value.
    private static let options: [String: @Sendable (inout SimulatorArguments, String) throws(SimulatorError) -> Void] = [
        "link": { $0.linkPath = $1 },
        "vpcd": { arguments, text throws(SimulatorError) in
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                (1...65535).contains(port), colon != text.startIndex
            else { throw .usage("--vpcd needs HOST:PORT (127.0.0.1:35963), got '\(text)'") }
            arguments.vpcd = (String(text[..<colon]), port)
        },
        "pcsc-reader": { arguments, text throws(SimulatorError) in
            guard let model = PCSCReaderModel(rawValue: text) else {
                let known = PCSCReaderModel.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("--pcsc-reader needs one of \(known), got '\(text)'")
            }
            arguments.pcscReader = model
        },
        "control": { $0.controlPath = $1 },
        "scenario": { $0.scenarioPath = $1 },
        "baud": { arguments, text throws(SimulatorError) in
            guard let value = Int(text), value > 0 else { throw .usage("--baud needs a positive number, got '\(text)'") }
            arguments.baudRate = value
        },
        "drop-one-in": { arguments, text throws(SimulatorError) in
            guard let value = UInt64(text), value > 0 else { throw .usage("--drop-one-in needs a positive number, got '\(text)'") }
            arguments.dropOneIn = value
        },
        "drop-seed": { arguments, text throws(SimulatorError) in
            guard let value = UInt64(text) else { throw .usage("--drop-seed needs a non-negative number, got '\(text)'") }
            arguments.dropSeed = value
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
        "without-autopoll": { $0.withoutAutoPoll = true },
        "pcsc-get-data-atqa-sak": { $0.answersATQAAndSAK = true },
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
        guard !help else { return }
        switch (linkPath, vpcd) {
        case (nil, nil): throw .usage("--link PATH or --vpcd HOST:PORT is required\n\(Self.usage)")
        case (.some, .some): throw .usage("give either --link or --vpcd, not both\n\(Self.usage)")
        case (.some, nil) where answersATQAAndSAK: throw .usage("--pcsc-get-data-atqa-sak needs --vpcd")
        case (.some, nil) where pcscReader != nil: throw .usage("--pcsc-reader needs --vpcd")
        case (nil, .some) where withoutAutoPoll: throw .usage("--without-autopoll is for --link (a PN532); --vpcd has none")
        case (nil, .some) where baudRate != nil: throw .usage("--baud is for --link (a serial line); --vpcd has none")
        default: break
        }
    }
}
