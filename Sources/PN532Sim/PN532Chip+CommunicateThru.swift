import enum NFCCore.Modulation
import struct NFCCore.Target

/// InCommunicateThru (UM0701-02 §7.3.9): the frame goes to the air as the CIU registers say —
/// TxMode/RxMode CRC bits, TxMode framing, BitFraming TxLastBits, ManualRCV parity — and the
/// answer comes back the same way, with RxLastBits in CIU_Control. Type A frames run through an
/// ISO/IEC 14443-3 layer (REQA/WUPA, ANTICOLLISION, SELECT, HLTA, RATS) before the tag sees them.
extension PN532Chip {
    /// What a tag sends back on the air.
    enum AirReply: Equatable {
        /// Whole bytes; `withCRC` says whether a CRC_A follows them on the air.
        case frame([UInt8], withCRC: Bool)
        /// A 4-bit ACK/NAK.
        case fourBits(UInt8)
        /// Nothing.
        case silent
    }

    /// InCommunicateThru: DataOut (may be empty: nothing is sent, nothing answers).
    func inCommunicateThru(_ data: [UInt8]) -> PN532Outcome {
        guard isFieldOn, !data.isEmpty else { return timeoutAnswer }
        switch registers.framing {
        case .typeA: return rawTypeA(data)
        case .felica: return rawFeliCa(data)
        case .typeB: return rawTypeB(data)
        case .active: return timeoutAnswer  // no virtual tag speaks this
        }
    }

    // MARK: Type A

    private func rawTypeA(_ data: [UInt8]) -> PN532Outcome {
        let lastBits = Int(registers.transmitLastBits)
        let bitCount = (data.count - 1) * 8 + (lastBits == 0 ? 8 : lastBits)
        var frame = data
        if registers.parityDisabled {
            guard let unwrapped = ISO14443AParityFraming.unwrap(data, bitCount: bitCount) else { return timeoutAnswer }
            frame = unwrapped
        }
        if bitCount == 7 {
            if frame[0] == 0x40 { return airAnswer(gen1aUnlockFirstStep()) }
            gen1aUnlocking = nil
            return airAnswer(shortFrame(frame[0]))
        }
        if let reply = gen1aUnlockSecondStep(frame, bitCount: bitCount) { return airAnswer(reply) }
        // With TxCRCEn off the host appended CRC_A itself; frames without one (ANTICOLLISION) pass as they are.
        let payload: [UInt8], hasCRC: Bool
        if registers.transmitCRC {
            (payload, hasCRC) = (frame, true)
        } else if frame.count >= 3, AirChecksum.endsWithCRCA(frame) {
            (payload, hasCRC) = (Array(frame.dropLast(2)), true)
        } else {
            (payload, hasCRC) = (frame, false)
        }
        return airAnswer(typeAFrame(payload, hasCRC: hasCRC))
    }

    /// REQA (26h) wakes IDLE tags, WUPA (52h) also HALTed ones; they answer ATQA (LSB first on air).
    private func shortFrame(_ command: UInt8) -> AirReply {
        guard command == 0x26 || command == 0x52 else { return .silent }
        let ready = field.placedTags.filter { placed in
            placed.tag.target.modulation == .iso14443a && (command == 0x52 || !airState(placed).isHalted)
        }
        activeTypeA = nil
        for placed in ready { updateAir(placed) { $0.isoDEP = nil } }
        guard !ready.isEmpty else {
            anticollision = nil
            return .silent
        }
        anticollision = Anticollision(ready: ready)
        // Several tags answer at once: their ATQAs superpose (bitwise OR).
        let atqa = ready.map { Self.senseResponse($0.tag.target.atqa) }.reduce([0, 0]) { [$0[0] | $1[0], $0[1] | $1[1]] }
        return .frame(atqa.reversed(), withCRC: false)
    }

    /// One whole-byte type A frame (CRC already checked and removed when present).
    private func typeAFrame(_ payload: [UInt8], hasCRC: Bool) -> AirReply {
        if payload.count >= 2, let level = ISO14443ACascade.selectCodes.firstIndex(of: payload[0]) {
            if payload[1] == 0x20 { return anticollisionAnswer(level: level) }
            if payload[1] == 0x70, payload.count == 7, hasCRC { return select(level: level, payload) }
        }
        guard hasCRC, let active = activeTypeA else { return .silent }
        guard reaches(active) else { return .silent }
        let target = active.tag.target
        if payload == [0x50, 0x00] {  // HLTA: no answer, the tag HALTs
            _ = active.tag.receive(payload)
            leaveActive(active) { $0.halted() }
            return .silent
        }
        if var session = airState(active).isoDEP {
            let result = session.handle(payload) { apdu in
                var apdu = apdu
                if WriteCorruption.isAPDUWrite(apdu), field.takeCorruptNextWrite() { apdu = WriteCorruption.corrupted(apdu) }
                return (active.tag as? ISODEPVirtualTag)?.process(apdu: apdu) ?? [0x6F, 0x00]
            }
            updateAir(active) { $0.isoDEP = session }
            switch result {
            case let .reply(block): return .frame(block, withCRC: true)
            case let .deselected(block):
                leaveActive(active) { $0.halted() }
                return .frame(block, withCRC: true)
            case .silent: return .silent
            }
        }
        if payload.count == 2, payload[0] == 0xE0, target.isISODEP {  // RATS (ISO/IEC 14443-4 §5.6.1)
            updateAir(active) { $0.isoDEP = ISODEPSession(ratsParameter: payload[1]) }
            return .frame(Self.atsWithLength(target), withCRC: true)
        }
        var frame = payload
        if WriteCorruption.isType2Write(frame), field.takeCorruptNextWrite() { frame = WriteCorruption.corrupted(frame) }
        switch active.tag.receive(frame) {
        case let .data(bytes): return .frame(bytes, withCRC: true)
        case .ack: return .fourBits(0x0A)
        case let .nak(code):
            leaveActive(active) { $0.refused() }
            return .fourBits(code & 0x0F)
        case .silent: return .silent
        }
    }

    /// ANTICOLLISION `SEL 20`: the first READY tag's UID CLn + BCC (collisions are not modelled).
    private func anticollisionAnswer(level: Int) -> AirReply {
        guard let state = anticollision, state.level == level,
            let first = state.ready.first(where: { ISO14443ACascade.levels(of: $0.tag.target.uid).count > level })
        else { return .silent }
        return .frame(ISO14443ACascade.anticollisionAnswer(level: ISO14443ACascade.levels(of: first.tag.target.uid)[level]),
                      withCRC: false)
    }

    /// SELECT `SEL 70 CLn BCC`: SAK with the cascade bit while the UID is incomplete; the final
    /// level makes the tag ACTIVE.
    private func select(level: Int, _ payload: [UInt8]) -> AirReply {
        guard var state = anticollision, state.level == level else { return .silent }
        let uidPart = Array(payload[2..<6])
        guard AirChecksum.bcc(uidPart) == payload[6] else { return .silent }
        let matching = state.ready.filter { placed in
            let levels = ISO14443ACascade.levels(of: placed.tag.target.uid)
            return levels.count > level && levels[level] == uidPart
        }
        guard let chosen = matching.first else { return .silent }
        if ISO14443ACascade.levels(of: chosen.tag.target.uid).count > level + 1 {
            state.ready = matching
            state.level += 1
            anticollision = state
            return .frame([ISO14443ACascade.uidIncompleteBit], withCRC: true)
        }
        anticollision = nil
        guard reaches(chosen), chosen.tag.activate() else { return .silent }
        updateAir(chosen) { $0.activated(isoDEP: nil) }
        activeTypeA = chosen
        return .frame([chosen.tag.target.sak ?? 0], withCRC: true)
    }

    /// Status + the answer as the host sees it (CRC unless RxCRCEn, parity bits when disabled).
    private func airAnswer(_ reply: AirReply) -> PN532Outcome {
        var bytes: [UInt8]
        var lastBits: UInt8 = 0
        switch reply {
        case .silent:
            registers.setReceiveLastBits(0)
            return timeoutAnswer
        case let .fourBits(value):
            bytes = [value]
            lastBits = 4
        case let .frame(frame, withCRC):
            if registers.receiveCRC && !withCRC {
                // The CIU checks a CRC the tag never sent (ATQA, ANTICOLLISION with RxCRCEn on).
                registers.setReceiveLastBits(0)
                return statusAnswer(.crcError)
            }
            bytes = withCRC && !registers.receiveCRC ? frame + AirChecksum.crcA(frame) : frame
            if registers.parityDisabled { (bytes, lastBits) = ISO14443AParityFraming.wrap(bytes) }
        }
        registers.setReceiveLastBits(lastBits)
        return sized(bytes)
    }

    // MARK: FeliCa

    /// A FeliCa frame `LEN command…` (+ the host's CRC when TxCRCEn is off); Polling (00h) goes to
    /// the first tag that answers, other commands to the tag whose IDm follows the command code.
    private func rawFeliCa(_ data: [UInt8]) -> PN532Outcome {
        var frame = data
        if !registers.transmitCRC {
            guard frame.count >= 3, FeliCaCRC.compute(Array(frame.dropLast(2))) == Array(frame.suffix(2)) else {
                return timeoutAnswer
            }
            frame.removeLast(2)
        }
        guard frame.count >= 2, Int(frame[0]) == frame.count else { return timeoutAnswer }
        var command = Array(frame.dropFirst())
        var answer: [UInt8]
        if command[0] == 0x00, command.count == 5 {
            guard let found = discoverFeliCa(maxTargets: 1, request: command).first else { return timeoutAnswer }
            answer = found.data
        } else {
            guard command.count >= 9,
                let placed = field.placedTags.first(where: { $0.tag is FeliCaVirtualTag && $0.tag.target.uid == Array(command[1..<9]) }),
                let felica = placed.tag as? FeliCaVirtualTag, reaches(placed)
            else { return timeoutAnswer }
            if WriteCorruption.isFeliCaWrite(command), field.takeCorruptNextWrite() {
                command = WriteCorruption.corrupted(command)
            }
            guard let response = felica.process(felica: command) else { return timeoutAnswer }
            answer = [UInt8(truncatingIfNeeded: response.count + 1)] + response
        }
        if !registers.receiveCRC { answer += FeliCaCRC.compute(answer) }
        return sized(answer)
    }
}

/// The FeliCa frame CRC (JIS X 6319-4 §6.4.4: CRC-16 CCITT, x^16+x^12+x^5+1, initial 0000h),
/// sent MSB first after the data.
enum FeliCaCRC {
    static func compute(_ data: [UInt8]) -> [UInt8] {
        var crc: UInt16 = 0
        for byte in data {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return [UInt8(crc >> 8), UInt8(truncatingIfNeeded: crc)]
    }
}
