/// The PN532 registers libnfc reads and writes (CIU registers at 6301h–633Fh, PN532 datasheet
/// §8.6.23 "CIU register map"; SFRs at FFxxh). Addresses not named here are still stored.
public enum PN532Register: UInt16, Sendable, CaseIterable {
    /// CIU_TxMode: bit 7 TxCRCEn, bits 6–4 TxSpeed, bits 1–0 TxFraming.
    case txMode = 0x6302
    /// CIU_RxMode: bit 7 RxCRCEn, bits 6–4 RxSpeed, bit 3 RxNoErr, bit 2 RxMultiple, bits 1–0 RxFraming.
    case rxMode = 0x6303
    /// CIU_TxAuto: bit 6 Force100ASK (libnfc sets it at initiator init).
    case txAuto = 0x6305
    /// CIU_ManualRCV: bit 4 ParityDisable.
    case manualRCV = 0x630D
    /// CIU_Status2: bit 3 MFCrypto1On, set by a successful MIFARE Classic authentication.
    case status2 = 0x6338
    /// CIU_Control: bit 4 Initiator, bits 2–0 RxLastBits (read-only: valid bits of the last byte).
    case control = 0x633C
    /// CIU_BitFraming: bit 7 StartSend, bits 6–4 RxAlign, bits 2–0 TxLastBits.
    case bitFraming = 0x633D
}

/// Framing selected by bits 1–0 of TxMode / RxMode (PN532 datasheet, CIU_TxMode).
public enum PN532Framing: UInt8, Sendable {
    /// ISO/IEC 14443-A and MIFARE.
    case typeA = 0
    /// Active communication mode (DEP).
    case active = 1
    /// FeliCa.
    case felica = 2
    /// ISO/IEC 14443-B.
    case typeB = 3
}

/// The emulated register file. It keeps every byte written, so libnfc's write-back cache — which
/// reads a register before changing some of its bits and writes only values that differ — sees a
/// consistent chip; and it answers the bits the emulator honours (CRC, parity, framing, last bits).
public struct PN532RegisterFile: Sendable, Equatable {
    private var values: [UInt16: UInt8]

    /// Values after SAMConfiguration as libnfc expects them: CRC on in both directions, parity on,
    /// initiator bit set. With these, libnfc's open sequence sends no WriteRegister at all.
    public static let resetValues: [PN532Register: UInt8] = [
        .txMode: 0x80, .rxMode: 0x80, .txAuto: 0x00, .manualRCV: 0x00, .status2: 0x00,
        .control: 0x10, .bitFraming: 0x00,
    ]

    /// A register file in reset state.
    public init() {
        values = Dictionary(uniqueKeysWithValues: Self.resetValues.map { ($0.key.rawValue, $0.value) })
    }

    /// The value at `address` (0 for a register never written).
    public subscript(address: UInt16) -> UInt8 {
        get { values[address] ?? 0 }
        set {
            if address == PN532Register.control.rawValue {
                // RxLastBits is read-only: the host cannot overwrite what the CIU received.
                values[address] = (newValue & ~Self.lastBitsMask) | (self[address] & Self.lastBitsMask)
            } else {
                values[address] = newValue
            }
        }
    }

    /// The value of a named register.
    public subscript(register: PN532Register) -> UInt8 {
        get { self[register.rawValue] }
        set { self[register.rawValue] = newValue }
    }

    private static let crcBit: UInt8 = 0x80
    private static let lastBitsMask: UInt8 = 0x07

    /// TxCRCEn: the chip appends CRC to what it transmits (else the host did).
    public var transmitCRC: Bool { self[.txMode] & Self.crcBit != 0 }
    /// RxCRCEn: the chip checks and strips the CRC of answers (else the host gets it).
    public var receiveCRC: Bool { self[.rxMode] & Self.crcBit != 0 }
    /// Transmit framing (bits 1–0 of TxMode).
    public var framing: PN532Framing { PN532Framing(rawValue: self[.txMode] & 0x03) ?? .typeA }
    /// ParityDisable: the host sends and receives parity bits inside the data stream.
    public var parityDisabled: Bool { self[.manualRCV] & 0x10 != 0 }
    /// TxLastBits: valid bits of the last byte sent (0 = all 8).
    public var transmitLastBits: UInt8 { self[.bitFraming] & Self.lastBitsMask }
    /// MFCrypto1On.
    public var crypto1On: Bool {
        get { self[.status2] & 0x08 != 0 }
        set { self[.status2] = newValue ? self[.status2] | 0x08 : self[.status2] & ~0x08 }
    }

    /// Stores RxLastBits after a reception (0 = the last byte was complete).
    public mutating func setReceiveLastBits(_ bits: UInt8) {
        let address = PN532Register.control.rawValue
        values[address] = (self[address] & ~Self.lastBitsMask) | (bits & Self.lastBitsMask)
    }

    /// Sets framing and speed of TxMode and RxMode as InListPassiveTarget does, keeping the CRC and
    /// other bits. `speed` is the 3-bit TxSpeed/RxSpeed code (0 = 106, 1 = 212, 2 = 424 kbps).
    public mutating func selectModulation(framing: PN532Framing, speed: UInt8) {
        for register in [PN532Register.txMode, .rxMode] {
            self[register] = (self[register] & 0x8C) | (speed & 0x07) << 4 | framing.rawValue
        }
    }
}
