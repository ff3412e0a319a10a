import CPCSCLite
import Glibc
import NFCCore

/// The reader's own LED and buzzer (``PCSCReaderProfile``): the ACR122U's Bi-color LED and Buzzer
/// Control pseudo-APDU (`FF 00 40`) through `SCardTransmit` while a card is connected, else through
/// `SCardControl` on a direct connection; the ACS escape commands (`E0 00 00 29` LED, `E0 00 00 28`
/// buzzer) through `SCardControl` (IOCTL 3500) on the card's handle or a direct connection.
extension PCSCSession {
    /// Drives the LED and buzzer as `signal` says. Throws ``NFCError/unsupportedOperation(_:)`` when the
    /// reader's profile has neither, or its driver refuses the control call (vsmartcard's vpcd has no
    /// `SCardControl`).
    func indicate(_ signal: IndicatorSignal) throws(NFCError) {
        let profile = currentProfile
        if profile.capabilities.contains(.ledBuzzerPseudoAPDU) {
            // T1 of 100 ms per beep (ACR122U API: units of 100 ms), one repetition per beep.
            let apdu = PCSCVendorAPDU.ledAndBuzzer(red: signal.isRed, green: signal.isGreen, beeps: signal.beeps, beepUnits: 1)
            let answer = try (card != nil ? transmitRaw(apdu) : control(apdu))
            guard answer.count == 2, answer[0] == 0x90 else {
                throw .unsupportedOperation("\(label) refused the LED and buzzer command (FF 00 40): it answered \(answer.hexString)")
            }
            return
        }
        if profile.capabilities.contains(.escapeLEDBuzzer) {
            try escape(PCSCVendorAPDU.escapeLED(red: signal.isRed, green: signal.isGreen))
            for beep in 0..<signal.beeps {
                if beep > 0 { usleep(Self.beepGapMicroseconds) }
                try escape(PCSCVendorAPDU.escapeBuzzer(tenMilliseconds: Self.beepTenMilliseconds))
            }
            return
        }
        throw .unsupportedOperation(
            "\(label) (profile \(profile.model.rawValue)) has no LED or buzzer NFCBridge can drive: use feedback.exec for one of the board's own")
    }

    /// A beep of the escape buzzer command: 100 ms, and 100 ms between two.
    static let beepTenMilliseconds: UInt8 = 10
    static let beepGapMicroseconds: UInt32 = 200_000

    private func escape(_ command: [UInt8]) throws(NFCError) {
        let answer = try control(command)
        guard PCSCVendorAPDU.escapeSucceeded(answer) else {
            throw .unsupportedOperation("\(label) refused the escape command \(command.hexString): it answered \(answer.hexString)")
        }
    }

    /// One `SCardControl` with the escape ioctl on the card's handle, or on a direct connection to the
    /// reader when no card is connected. Wraps `SCardConnect` (`SCARD_SHARE_DIRECT`), `SCardControl`,
    /// `SCardDisconnect`.
    private func control(_ command: [UInt8]) throws(NFCError) -> [UInt8] {
        var handle = card?.handle ?? SCARDHANDLE()
        let direct = card == nil
        if direct {
            var activeProtocol = DWORD(0)
            let connected = PCSCReturnCode(SCardConnect(context, readerName, DWORD(SCARD_SHARE_DIRECT), 0, &handle, &activeProtocol))
            guard connected.isSuccess else {
                throw .unsupportedOperation("\(label): no direct connection to the reader for its LED and buzzer (\(connected.nfcError(reader: label, call: "SCardConnect").message))")
            }
        }
        defer { if direct { SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) } }
        var answer = [UInt8](repeating: 0, count: 258)
        var length = DWORD(0)
        let result = PCSCReturnCode(SCardControl(
            handle, DWORD(PCSCVendorAPDU.escapeControlCode), command, DWORD(command.count), &answer, DWORD(answer.count), &length))
        guard result.isSuccess else {
            throw .unsupportedOperation(
                "\(label): the reader's driver refused SCardControl (escape) for its LED and buzzer: \(result.nfcError(reader: label, call: "SCardControl").message)")
        }
        return Array(answer.prefix(Int(length)))
    }
}
