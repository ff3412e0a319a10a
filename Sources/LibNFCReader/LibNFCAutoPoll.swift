import NFCCore

/// The PN532's own polling, InAutoPoll (PN532 user manual UM0701-02 §7.3.13): the host sends one
/// command with the target types, a poll count and a period, and the chip answers when a target of
/// one of them is there — or, the polls used up, with none. The idle serial line stays quiet, and
/// a tag is seen when it enters the field rather than at the host's next question.
///
/// This backend's rows of that command: the target types per modulation, the period, and how the
/// chip's answer reads. Only 106 kbps type A and FeliCa are auto-polled: their targets, once found,
/// are brought to the state the host's own poll leaves them in (type A: halted by `InDeselect`,
/// then listed again from there; FeliCa, which has no HALT: polled again with the system-code
/// request). Type B and Jewel have no row: a poll that includes them stays host-driven.
enum LibNFCAutoPoll {
    /// What the reader said to InAutoPoll in this session.
    enum Support: Equatable {
        /// Not asked yet, or it refused `refusals` times in a row (the error frame, after which the
        /// chip answered a probe) without ever answering.
        case untried(refusals: Int)
        /// It answered once: it has the command.
        case answers
        /// Not a PN532 (PN531/PN533 have no InAutoPoll, the `pcsc` driver no PN53x), or it refused
        /// ``refusalsBeforeFallback`` times in a row: the host polls.
        case refused
    }

    /// Refusals in a row before the session polls from the host: one error frame may be a garbled
    /// answer on a noisy line, two in a row are the reader's answer.
    static let refusalsBeforeFallback = 2

    /// The InAutoPoll command code (UM0701-02 §7.3.13).
    static let command: UInt8 = 0x60
    /// Period 01h: 150 ms per target type and poll (UM0701-02 §7.3.13, Period × 150 ms).
    static let period: UInt8 = 0x01
    static let periodUnit: Duration = .milliseconds(150)
    /// The most polls one command asks for: FFh would be endless (UM0701-02 §7.3.13, PollNr 01h–FEh).
    static let maximumPolls = 0xFE
    /// How much longer than its polls the host waits for the answer (ACK, then the answer frame):
    /// line time and the chip's own RF time. A lost frame costs at most this much more.
    static let answerMargin: Duration = .milliseconds(300)
    /// Room for the answer: NbTg and two targets of up to 64 bytes each.
    static let answerCapacity = 160

    /// The target types (UM0701-02 §7.3.13, Type list) polled for `modulation`, in order; nil
    /// when InAutoPoll is not used for it. 106 kbps type A asks for ISO/IEC 14443-4 targets (20h:
    /// the chip sends RATS and reports the ATS, as InListPassiveTarget does with fAutomaticRATS)
    /// before MIFARE / any type A (10h).
    static func types(for modulation: Modulation) -> [UInt8]? {
        switch modulation {
        case .iso14443a: [0x20, 0x10]
        case .felica212: [0x11]
        case .felica424: [0x12]
        case .iso14443b, .jewel, .iso15693: nil
        }
    }

    /// The modulation of a target type the chip reported, among the ones asked for.
    static func modulation(ofType type: UInt8, among modulations: [Modulation]) -> Modulation? {
        modulations.first { types(for: $0)?.contains(type) == true }
    }

    /// What one InAutoPoll answer (`NbTg [Type Len AutoPollTargetData]…`, UM0701-02 §7.3.13) says.
    enum Answer: Equatable {
        /// NbTg 0: the polls found nothing.
        case nothing
        /// The first target: its type and its target data (`Tg …`, as InListPassiveTarget's, §7.3.5).
        case target(type: UInt8, data: [UInt8])
        /// Too short or inconsistent: a frame garbled on the way.
        case garbled
    }

    static func answer(_ bytes: [UInt8]) -> Answer {
        guard let count = bytes.first else { return .garbled }
        if count == 0 { return .nothing }
        guard bytes.count >= 3 else { return .garbled }
        let length = Int(bytes[2])
        guard length >= 1, bytes.count >= 3 + length else { return .garbled }
        return .target(type: bytes[1], data: Array(bytes[3..<(3 + length)]))
    }

    /// True when a type A target InAutoPoll reported can take exchanges as the chip left it (selected
    /// as target 1, UM0701-02 §7.3.13): one found as ISO/IEC 14443-4 (type 20h: the chip sent RATS,
    /// the ATS is in the data), or one whose SAK says it is not ISO/IEC 14443-4 (bit 6, ISO/IEC 14443-3
    /// §6.5.3.4). A SAK with that bit found as type 10h had no RATS: it is selected again by the list.
    static func isReadyForExchanges(type: UInt8, target: Target) -> Bool {
        type == 0x20 ? !target.ats.isEmpty : (target.sak ?? 0) & 0x20 == 0
    }

    /// A 106 kbps type A target from its target data `Tg SENS_RES(2) SEL_RES NFCIDLength NFCID1
    /// [ATS]` (UM0701-02 §7.3.5; the ATS with its length byte TL, kept without it as libnfc's
    /// `pn53x_decode_target_data` does). Nil when the data does not add up or the UID is not 4, 7
    /// or 10 bytes (ISO/IEC 14443-3 §6.5.4).
    static func typeATarget(_ data: [UInt8]) -> Target? {
        guard data.count >= 5 else { return nil }
        let uidLength = Int(data[4])
        guard [4, 7, 10].contains(uidLength), data.count >= 5 + uidLength else { return nil }
        let uid = Array(data[5..<(5 + uidLength)])
        var ats: [UInt8] = []
        if data.count > 5 + uidLength {
            let tl = Int(data[5 + uidLength])
            guard tl >= 1, data.count >= 5 + uidLength + tl else { return nil }
            ats = Array(data[(6 + uidLength)..<(5 + uidLength + tl)])
        }
        return Target(modulation: .iso14443a, uid: uid, atqa: Array(data[1...2]), sak: data[3], ats: ats)
    }
}
