import NFCCore

/// The vendor commands of the readers in ``PCSCReaderProfile``: encodings and answer decoding, pure
/// functions tested without pcscd.
enum PCSCVendorAPDU {
    // MARK: ACR122U pseudo-APDUs (ACR122U Application Programming Interface v2.04, §6 "Pseudo-APDUs")

    /// Direct Transmit `FF 00 00 00 Lc` + a PN532 command (D4h …); the answer is the PN532's (D5h …) and
    /// 90 00, or 63 00 / 63 01 / 63 27 / 63 7F when the PN532 failed, did not answer, or refused it.
    static func directTransmit(_ pn532Command: [UInt8]) -> [UInt8] {
        [0xFF, 0x00, 0x00, 0x00, UInt8(truncatingIfNeeded: pn532Command.count)] + pn532Command
    }

    /// PN532 InCommunicateThru (UM0701-02 §7.3.9): `D4 42` + the frame; the PN532 adds and checks the CRC.
    static func inCommunicateThru(_ frame: [UInt8]) -> [UInt8] { directTransmit([0xD4, 0x42] + frame) }

    /// The PN532 status byte "no error" and "time out, the target has not answered" (UM0701-02 §7.1).
    static let pn532StatusOK: UInt8 = 0x00
    static let pn532StatusTimeout: UInt8 = 0x01

    /// What an InCommunicateThru through Direct Transmit gave: the card's bytes, silence, or a PN532 error.
    enum ThruAnswer: Equatable {
        case data([UInt8])
        case timeout
        case pn532Error(UInt8)
        /// The reader refused the escape itself (SW1 SW2 other than 90 00).
        case refused(UInt8, UInt8)
    }

    /// Decodes a Direct Transmit answer to InCommunicateThru: `D5 43 status data… 90 00`.
    static func thruAnswer(_ answer: [UInt8]) throws(NFCError) -> ThruAnswer {
        guard let (body, sw1, sw2) = PCSCPseudoAPDU.split(answer) else { throw .invalidResponse(answer) }
        guard (sw1, sw2) == (0x90, 0x00) else { return .refused(sw1, sw2) }
        guard body.count >= 3, body[0] == 0xD5, body[1] == 0x43 else { throw .invalidResponse(answer) }
        let status = body[2] & 0x3F  // bits 6–7: NAD / MI flags (UM0701-02 §7.1)
        if status == pn532StatusTimeout { return .timeout }
        guard status == pn532StatusOK else { return .pn532Error(status) }
        return .data(Array(body.dropFirst(3)))
    }

    /// Get the Firmware Version `FF 00 48 00 00`: the answer is the ASCII string alone ("ACR122U201").
    static let firmwareVersion: [UInt8] = [0xFF, 0x00, 0x48, 0x00, 0x00]

    /// Bi-color LED and Buzzer Control `FF 00 40 P2 04 T1 T2 repetitions link`: P2 bit 0/1 the final red /
    /// green state, bit 2/3 their masks (update), bits 4–7 blinking; T1 and T2 in 100 ms units; link
    /// to buzzer 00 none, 01 during T1, 02 during T2, 03 both. The answer is `90 <LED state>`.
    static func ledAndBuzzer(red: Bool, green: Bool, beeps: Int, beepUnits: UInt8) -> [UInt8] {
        let state: UInt8 = (red ? 0x01 : 0) | (green ? 0x02 : 0) | 0x0C
        let repetitions = UInt8(clamping: max(1, beeps))
        let link: UInt8 = beeps > 0 ? 0x01 : 0x00
        return [0xFF, 0x00, 0x40, state, 0x04, max(1, beepUnits), 0x01, repetitions, link]
    }

    // MARK: ACS escape commands (SCardControl, IOCTL 3500)

    /// `SCARD_CTL_CODE(3500)` as pcsc-lite defines `SCARD_CTL_CODE` (0x42000000 + code), the escape ioctl
    /// of the ACS readers' CCID driver.
    static let escapeControlCode: UInt = 0x4200_0000 + 3500

    /// LED Control `E0 00 00 29 01 state`: bit 0 red, bit 1 green (ACR1252U; blue/green on the ACR1552U).
    static func escapeLED(red: Bool, green: Bool) -> [UInt8] {
        [0xE0, 0x00, 0x00, 0x29, 0x01, (red ? 0x01 : 0) | (green ? 0x02 : 0)]
    }

    /// Buzzer Control `E0 00 00 28 01 duration` in 10 ms units (00 off).
    static func escapeBuzzer(tenMilliseconds: UInt8) -> [UInt8] { [0xE0, 0x00, 0x00, 0x28, 0x01, tenMilliseconds] }

    /// An escape answer is `E1 00 00 00 Le data`.
    static func escapeSucceeded(_ answer: [UInt8]) -> Bool { answer.count >= 5 && answer[0] == 0xE1 }
}
