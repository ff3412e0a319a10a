import CNFC
import NFCCore

extension Target {
    /// Reads what libnfc decoded from the chip's target data (`pn53x_decode_target_data`).
    /// Returns nil for target kinds NFCCore has no use for (B', DEP, …) and ISO 15693 (no libnfc row).
    init?(libnfc target: nfc_target, modulation: Modulation) {
        switch modulation {
        case .iso14443a:
            let info = target.nti.nai
            self.init(
                modulation: .iso14443a,
                uid: Self.bytes(of: info.abtUid, count: info.szUidLen),
                atqa: Self.bytes(of: info.abtAtqa, count: 2),
                sak: info.btSak,
                // libnfc stores the ATS without its TL byte.
                ats: Self.bytes(of: info.abtAts, count: info.szAtsLen))
        case .felica212, .felica424:
            let info = target.nti.nfi
            // POL_RES is 18 bytes, or 20 when the polling asked for the system code (request code 01).
            let systemCode = info.szLen >= 20 ? Self.bytes(of: info.abtSysCode, count: 2) : []
            self.init(
                modulation: modulation, uid: Self.bytes(of: info.abtId, count: 8),
                pmm: Self.bytes(of: info.abtPad, count: 8), systemCode: systemCode)
        case .iso14443b:
            // `pn53x_decode_target_data` splits the ATQB (after its 50h): PUPI, application data, protocol info.
            let info = target.nti.nbi
            self.init(
                pupi: Self.bytes(of: info.abtPupi, count: 4),
                applicationData: Self.bytes(of: info.abtApplicationData, count: 4),
                protocolInfo: Self.bytes(of: info.abtProtocolInfo, count: 3))
        case .jewel:
            // SENS_RES (ATQA-like, `0C 00` for a Topaz) and the 4-byte UID of RID (NFC Forum Digital §8.6).
            let info = target.nti.nji
            self.init(modulation: .jewel, uid: Self.bytes(of: info.btId, count: 4), atqa: Self.bytes(of: info.btSensRes, count: 2))
        case .iso15693:
            return nil
        }
    }

    /// Copies the first `count` bytes out of an imported C array (a Swift tuple), never past its end.
    private static func bytes<Tuple>(of tuple: Tuple, count: Int) -> [UInt8] {
        withUnsafeBytes(of: tuple) { raw in Array(raw.prefix(max(0, count))) }
    }
}
