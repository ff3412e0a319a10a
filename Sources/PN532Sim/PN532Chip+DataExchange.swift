import enum NFCCore.ClassicKeyType

/// InDataExchange (UM0701-02 §7.3.8): the PN532 talks to an activated target with its protocol
/// handled in firmware — CRC and parity always, MIFARE Classic authentication and two-part
/// writes, ISO-DEP blocks (the tag sees whole APDUs), FeliCa with the LEN byte.
extension PN532Chip {
    /// Most data bytes after the status byte in one answer frame (LEN 265 = TFI, code, status, 262).
    static let maximumAnswerData = 262

    /// InDataExchange: Tg (bit 6 = MI from the host), DataOut.
    /// Status 01 when the tag is silent, 13 for its NAK, 14 for a failed MIFARE authentication,
    /// 07 for a non-ISO-DEP answer over 262 bytes, 27 for an unknown or deselected target; an
    /// ISO-DEP answer over 262 bytes comes in parts with MI (bit 6) set until the last.
    func inDataExchange(_ parameters: [UInt8]) -> PN532Outcome {
        guard let tg = parameters.first else { return .syntaxError }
        let number = tg & 0x3F, moreFromHost = tg & 0x40 != 0
        let data = Array(parameters.dropFirst())
        guard let index = targets.firstIndex(where: { $0.number == number }), !targets[index].isDeselected else {
            return statusAnswer(.wrongContext)
        }
        let placed = targets[index].placed
        switch targets[index].kind {
        case .felica:
            return felicaExchange(placed, data)
        case .typeA:
            if airState(placed).isoDEP != nil, let isoDEP = placed.tag as? ISODEPVirtualTag {
                return isoDEPExchange(index, data, moreFromHost: moreFromHost) { isoDEP.process(apdu: $0) }
            }
            return mifareExchange(placed, data)
        case .typeB:
            // The firmware runs the blocks with CRC_B on the air (PN532Chip+TypeB).
            return isoDEPExchange(index, data, moreFromHost: moreFromHost) { [unowned self] in self.typeBExchange(index, apdu: $0) }
        }
    }

    /// FeliCa: DataOut is `LEN command…`; the answer is `LEN response…`.
    private func felicaExchange(_ placed: PlacedTag, _ data: [UInt8]) -> PN532Outcome {
        guard data.count >= 2, let felica = placed.tag as? FeliCaVirtualTag else { return statusAnswer(.invalidParameter) }
        guard reaches(placed) else { return timeoutAnswer }
        var command = Array(data.dropFirst())
        if WriteCorruption.isFeliCaWrite(command), field.takeCorruptNextWrite() {
            command = WriteCorruption.corrupted(command)
        }
        guard let response = felica.process(felica: command) else { return timeoutAnswer }
        return sized([UInt8(truncatingIfNeeded: response.count + 1)] + response)
    }

    /// ISO-DEP: the firmware wraps DataOut in I-blocks; `exchange` takes the whole APDU to the tag and
    /// returns its response (nil: the tag went silent).
    private func isoDEPExchange(
        _ index: Int, _ data: [UInt8], moreFromHost: Bool, exchange: ([UInt8]) -> [UInt8]?
    ) -> PN532Outcome {
        if moreFromHost {
            targets[index].hostChain += data
            return statusAnswer(.success)
        }
        if data.isEmpty && !targets[index].chainedAnswer.isEmpty { return nextAnswerPart(index) }
        guard reaches(targets[index].placed) else { return timeoutAnswer }
        var apdu = targets[index].hostChain + data
        targets[index].hostChain = []
        if WriteCorruption.isAPDUWrite(apdu), field.takeCorruptNextWrite() { apdu = WriteCorruption.corrupted(apdu) }
        guard let response = exchange(apdu) else { return timeoutAnswer }
        targets[index].chainedAnswer = response
        return nextAnswerPart(index)
    }

    /// Up to 262 bytes of the pending ISO-DEP answer, MI set while more remain.
    private func nextAnswerPart(_ index: Int) -> PN532Outcome {
        let part = Array(targets[index].chainedAnswer.prefix(Self.maximumAnswerData))
        targets[index].chainedAnswer.removeFirst(part.count)
        let more: UInt8 = targets[index].chainedAnswer.isEmpty ? 0x00 : 0x40
        lastStatus = .success
        return .answer([PN532Status.success.rawValue | more] + part)
    }

    /// MIFARE (type A without ISO-DEP): AUTH 60h/61h, two-part WRITE A0h and value operations,
    /// everything else as one frame.
    private func mifareExchange(_ placed: PlacedTag, _ data: [UInt8]) -> PN532Outcome {
        guard let command = data.first else { return statusAnswer(.invalidParameter) }
        guard reaches(placed) else { return timeoutAnswer }
        switch command {
        case 0x60, 0x61:
            return authenticate(placed, data)
        case 0xA0 where data.count == 18:
            // MIFARE Classic WRITE / Type 2 COMPATIBILITY WRITE: `A0 block` → ACK, then 16 bytes → ACK.
            let first = placed.tag.receive(Array(data[0...1]))
            guard first == .ack else { return mifareAnswer(first == .silent ? .silent : .nak(0), from: placed) }
            var payload = Array(data[2...])
            if field.takeCorruptNextWrite() { payload = WriteCorruption.corrupted(payload) }
            return mifareAnswer(placed.tag.receive(payload), from: placed)
        case 0xC0...0xC2 where data.count == 6:
            // DECREMENT / INCREMENT / RESTORE: `op block` → ACK, then the value (no answer = accepted).
            let first = placed.tag.receive(Array(data[0...1]))
            guard first == .ack else { return mifareAnswer(first == .silent ? .silent : .nak(0), from: placed) }
            let second = placed.tag.receive(Array(data[2...]))
            return second == .silent ? statusAnswer(.success) : mifareAnswer(second, from: placed)
        default:
            var frame = data
            if WriteCorruption.isType2Write(frame), field.takeCorruptNextWrite() { frame = WriteCorruption.corrupted(frame) }
            return mifareAnswer(placed.tag.receive(frame), from: placed)
        }
    }

    /// MIFARE Classic authentication `60/61 block key(6) uid(4)`, checked by the tag model (the
    /// PN532 runs Crypto1 itself). Failure: status 14 and the tag HALTs, so the host re-selects.
    private func authenticate(_ placed: PlacedTag, _ data: [UInt8]) -> PN532Outcome {
        let target = placed.tag.target
        if let classic = placed.tag as? ClassicVirtualTag, data.count >= 8 {
            let uid = data.count >= 12 ? Array(data[8..<12]) : Array(target.uid.suffix(4))
            let keyType: ClassicKeyType = data[0] == 0x60 ? .a : .b
            if classic.authenticate(block: Int(data[1]), keyType: keyType, key: Array(data[2..<8]), uid: uid) {
                registers.crypto1On = true
                return statusAnswer(.success)
            }
        }
        registers.crypto1On = false
        leaveActive(placed) { $0.halted() }
        return statusAnswer(.mifareAuthenticationError)
    }

    /// Maps a reply of `placed` to InDataExchange status + data (a NAK leaves the tag IDLE).
    private func mifareAnswer(_ reply: VirtualTagReply, from placed: PlacedTag) -> PN532Outcome {
        switch reply {
        case let .data(bytes): return sized(bytes)
        case .ack: return statusAnswer(.success)
        case .nak:
            leaveActive(placed) { $0.refused() }
            return statusAnswer(.invalidFrame)
        case .silent: return timeoutAnswer
        }
    }

    /// Status 00 + data, or status 07 when the data does not fit one answer frame.
    func sized(_ data: [UInt8]) -> PN532Outcome {
        data.count > Self.maximumAnswerData ? statusAnswer(.bufferTooSmall) : statusAnswer(.success, data)
    }
}
