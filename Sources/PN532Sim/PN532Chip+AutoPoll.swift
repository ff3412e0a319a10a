/// InAutoPoll (UM0701-02 §7.3.13): the chip polls for the listed target types by itself, PollNr
/// times (FFh: until a target answers), and answers once one is found — or, when the polls are
/// used up, with no target at all. The emulator's own reading of that section; it shares no
/// table with the agent.
extension PN532Chip {
    /// What an InAutoPoll target type looks for (UM0701-02 §7.3.13, Type list).
    enum AutoPollType {
        case typeA(onlyISODEP: Bool)
        case felica
        /// 106 kbps type B, AFI 00h (every virtual B card is ISO/IEC 14443-4, so 03h and 23h find the same).
        case typeB
    }

    /// Target types the emulator can find (UM0701-02 §7.3.13, Type list); the others it accepts
    /// (Jewel 04h, DEP 40h–42h, 80h–82h) never answer: no such virtual tags exist.
    static let autoPollTypes: [UInt8: AutoPollType] = [
        0x00: .typeA(onlyISODEP: false),  // generic passive 106 kbps
        0x10: .typeA(onlyISODEP: false),  // MIFARE
        0x20: .typeA(onlyISODEP: true),  // ISO/IEC 14443-4 type A
        0x01: .felica, 0x11: .felica,  // passive 212 kbps (generic, FeliCa)
        0x02: .felica, 0x12: .felica,  // passive 424 kbps
        0x03: .typeB,  // passive 106 kbps ISO/IEC 14443-3 type B
        0x23: .typeB,  // ISO/IEC 14443-4 type B
    ]

    /// The parameter ranges of UM0701-02 §7.3.13: PollNr 01h–FEh (FFh: endless), Period 01h–0Fh
    /// (× 150 ms), 1 to 15 target types.
    enum AutoPollLimits {
        static let pollCount: ClosedRange<UInt8> = 0x01...0xFF
        static let endless: UInt8 = 0xFF
        static let period: ClosedRange<UInt8> = 0x01...0x0F
        static let types: ClosedRange<Int> = 1...15
    }

    /// The answer when every poll found nothing: NbTg = 0 and no target data (UM0701-02 §7.3.13,
    /// output `D5 61 NbTg [Type AutoPollTargetData]…`).
    static let autoPollNothingFound: [UInt8] = [0x00]

    /// The SENSF_REQ the chip sends for the FeliCa types: any system code, no request code, one time
    /// slot (JIS X 6319-4 §6.6.5; InAutoPoll takes no initiator data, UM0701-02 §7.3.13).
    static let autoPollFeliCaRequest: [UInt8] = [0x00, 0xFF, 0xFF, 0x00, 0x00]

    /// InAutoPoll: PollNr, Period, Type₁…Typeₙ. Answers `NbTg Type Len TargetData` for the first type
    /// that finds a tag; types 20h (ISO/IEC 14443-4A) include the ATS, types 03h/23h (type B) the
    /// ATQB and the ATTRIB answer. After PollNr × n × Period × 150 ms without a tag it answers
    /// ``autoPollNothingFound``. A chip made without InAutoPoll (`--without-autopoll`, as PN531 and
    /// PN533 have no such command) answers the syntax-error frame, as for any command it lacks.
    func inAutoPoll(_ parameters: [UInt8]) -> PN532Outcome {
        guard answersAutoPoll, parameters.count >= 2 else { return .syntaxError }
        let pollCount = parameters[0], period = parameters[1]
        let types = Array(parameters.dropFirst(2))
        guard AutoPollLimits.pollCount.contains(pollCount), AutoPollLimits.period.contains(period),
            AutoPollLimits.types.contains(types.count)
        else { return .syntaxError }
        let probe = { [unowned self] () -> [UInt8]? in
            for type in types {
                guard let poll = Self.autoPollTypes[type] else { continue }
                let found: [Discovered]
                switch poll {
                case let .typeA(onlyISODEP):
                    found = discoverTypeA(maxTargets: 1, uid: nil, onlyISODEP: onlyISODEP, rats: onlyISODEP)
                case .felica:
                    found = discoverFeliCa(maxTargets: 1, request: Self.autoPollFeliCaRequest)
                case .typeB:
                    registers.selectModulation(framing: .typeB, speed: 0)
                    found = discoverTypeB(maxTargets: 1, afi: 0x00)
                    if found.isEmpty { registers.selectModulation(framing: .typeA, speed: 0) }
                }
                guard let first = found.first else { continue }
                adopt([first])
                let data = [0x01] + first.data
                return [0x01, type, UInt8(data.count)] + data
            }
            return nil
        }
        startDiscovery()
        if let answer = probe() { return .answer(answer) }
        let limit = pollCount == AutoPollLimits.endless
            ? nil : timing.chip(PN532Timing.autoPollPeriodUnit * (Int(pollCount) * types.count * Int(period)))
        return .wait(PN532Wait(timeLimit: limit, probe: probe, giveUpAnswer: Self.autoPollNothingFound))
    }
}
