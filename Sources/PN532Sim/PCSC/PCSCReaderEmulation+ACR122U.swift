/// The ACR122U's pseudo-APDUs (class FF, INS 00; ACR122U Application Programming Interface v2.04,
/// "Pseudo-APDUs"), answered only when the reader model lists them (``PCSCReaderModel``):
/// - `FF 00 00 00 Lc` Direct Transmit of a PN532 command: InCommunicateThru `D4 42` (a raw frame to the
///   card, the PN532 adds and checks the CRC), InDataExchange `D4 40 01`, GetFirmwareVersion `D4 02`;
///   the PN532's answer (`D5 …`, status byte first; UM0701-02 §7.1: 00 no error, 01 time-out) and 90 00;
/// - `FF 00 40 P2 04 T1 T2 repetitions link` Bi-color LED and Buzzer Control: P2 bits 0/1 the final
///   red / green state, bits 2/3 their update masks; link to buzzer 01–03 beeps once per repetition;
///   answered `90 <LED state>` (bit 0 red, bit 1 green);
/// - `FF 00 48 00 00` Get the Firmware Version: the ASCII string, no status word.
extension PCSCReaderEmulation {
    func vendorCommand(_ command: CommandAPDU, _ card: PlacedTag) -> [UInt8] {
        switch command.p1 {
        case 0x48:
            guard command.p2 == 0x00, let firmware = profile.model.row.firmware else { return PCSCStatusWord.wrongParameters.bytes }
            return Array(firmware.utf8)
        case 0x40:
            return ledAndBuzzer(state: command.p2, command.data)
        default:
            guard command.p2 == 0x00, command.data.count >= 2, command.data[0] == 0xD4 else { return PCSCStatusWord.failed.bytes }
            return directTransmit(command.data, card)
        }
    }

    private func ledAndBuzzer(state p2: UInt8, _ data: [UInt8]) -> [UInt8] {
        guard data.count == 4 else { return PCSCStatusWord.failed.bytes }
        let (repetitions, link) = (Int(data[2]), data[3])
        var current: UInt8 = 0
        panel.update { state in
            if p2 & 0x04 != 0 { state.red = p2 & 0x01 != 0 }
            if p2 & 0x08 != 0 { state.green = p2 & 0x02 != 0 }
            if link & 0x03 != 0 { state.beeps += max(1, repetitions) }
            state.commands += 1
            state.lastCommand = ([0xFF, 0x00, 0x40, p2, 0x04] + data).map { $0.hexString }.joined()
            current = (state.red ? 0x01 : 0) | (state.green ? 0x02 : 0)
        }
        return [0x90, current]
    }

    /// A PN532 command through Direct Transmit.
    private func directTransmit(_ pn532: [UInt8], _ card: PlacedTag) -> [UInt8] {
        let ok = PCSCStatusWord.success.bytes
        switch pn532[1] {
        case 0x02:  // GetFirmwareVersion (UM0701-02 §7.2.2): IC 32h, version 1.6, support 07h.
            return [0xD5, 0x03, 0x32, 0x01, 0x06, 0x07] + ok
        case 0x42:
            return [0xD5, 0x43] + communicate(Array(pn532.dropFirst(2)), card) + ok
        case 0x40:
            guard pn532.count >= 3, pn532[2] == 0x01 else { return [0xD5, 0x41, 0x27] + ok }  // wrong context (§7.1)
            return [0xD5, 0x41] + communicate(Array(pn532.dropFirst(3)), card) + ok
        default:
            return PCSCStatusWord.failed.bytes
        }
    }

    /// Status byte and data of one frame to the card: 00 + the answer (a 4-bit ACK / NAK as its byte),
    /// or 01 (time-out) when the card stays silent.
    private func communicate(_ frame: [UInt8], _ card: PlacedTag) -> [UInt8] {
        let timeout: [UInt8] = [0x01]
        guard !frame.isEmpty, reach(card) else { return timeout }
        if let felica = card.tag as? FeliCaVirtualTag {
            guard frame.count >= 2, let response = felica.process(felica: Array(frame.dropFirst())) else { return timeout }
            return [0x00, UInt8(truncatingIfNeeded: response.count + 1)] + response
        }
        switch exchange(frame, with: card) {
        case let .data(bytes): return [0x00] + bytes
        case .ack: return [0x00, 0x0A]
        case let .nak(code): return [0x00, code]
        case .silent: return timeout
        }
    }
}
