import CNFC
import NFCCore

/// The libnfc backend's rows of the technology table (``Technology``), keyed by ``Modulation``: the
/// libnfc modulation it polls and selects with and the initiator data it sends (libnfc's
/// `prepare_initiator_data`). A modulation without a row is one this backend cannot poll: ISO/IEC
/// 15693 (libnfc 1.8.0 has no such modulation, and PN53x chips have no ISO 15693 front end).
struct LibNFCModulation {
    /// The modulation type and baud rate libnfc polls for.
    let libnfc: nfc_modulation
    /// What a poll sends with each select.
    let pollData: [UInt8]
    /// What selecting a known target again sends.
    let selectData: SelectData
    /// True when a poll deselects a tag it found to look for more: only ISO 14443-A tags halt on
    /// `InDeselect`; FeliCa and type B tags ignore it, so one select is all they get (as in libnfc).
    let findsSeveral: Bool

    /// The initiator data of a select by target.
    enum SelectData {
        /// The target's UID (ISO 14443-A: the chip selects that UID).
        case uid
        /// These bytes.
        case bytes([UInt8])

        /// The bytes for `target`.
        func bytes(for target: Target) -> [UInt8] {
            switch self {
            case .uid: target.uid
            case let .bytes(bytes): bytes
            }
        }
    }

    /// The SENSF_REQ parameters a FeliCa select sends (JIS X 6319-4 §7.5.1 / NFC Digital §8.6.1):
    /// system code FFFFh (any), request code 01h (return the system code), time slot 00h (1 slot);
    /// libnfc's `prepare_initiator_data` sends the same.
    static let sensfRequest: [UInt8] = [0x00, 0xFF, 0xFF, 0x01, 0x00]
    /// The ISO 14443-3 REQB parameter AFI 00h: every application family (§7.7.2).
    static let anyApplicationFamily: [UInt8] = [0x00]

    /// The row of `modulation`; nil when libnfc cannot poll it.
    static func row(for modulation: Modulation) -> LibNFCModulation? {
        switch modulation {
        case .iso14443a:
            LibNFCModulation(libnfc: nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106), pollData: [], selectData: .uid,
                             findsSeveral: true)
        case .iso14443b:
            LibNFCModulation(libnfc: nfc_modulation(nmt: NMT_ISO14443B, nbr: NBR_106), pollData: anyApplicationFamily,
                             selectData: .bytes(anyApplicationFamily), findsSeveral: false)
        case .felica212:
            LibNFCModulation(libnfc: nfc_modulation(nmt: NMT_FELICA, nbr: NBR_212), pollData: sensfRequest,
                             selectData: .bytes(sensfRequest), findsSeveral: false)
        case .felica424:
            LibNFCModulation(libnfc: nfc_modulation(nmt: NMT_FELICA, nbr: NBR_424), pollData: sensfRequest,
                             selectData: .bytes(sensfRequest), findsSeveral: false)
        // libnfc sends no initiator data for Jewel (PN533 InListPassiveTarget BrTy 04h has none).
        case .jewel:
            LibNFCModulation(libnfc: nfc_modulation(nmt: NMT_JEWEL, nbr: NBR_106), pollData: [], selectData: .bytes([]),
                             findsSeveral: false)
        case .iso15693:
            nil
        }
    }
}
