import NFCCore

/// The memory a fresh tag leaves the factory with, NFC Forum formatted (Flipper's
/// `nfc_data_generator.c` does the same for its factory-fresh tags).
///
/// Sources: NTAG213/215/216 §8.5 ("memory content at delivery": CC E1 10 12/3E/6D 00, empty NDEF TLV
/// `03 00 FE` at page 4, CFG0 `04 00 00 FF`, CFG1 `00 00 00 00`, PWD `FF FF FF FF`, PACK `00 00`, dynamic
/// lock page `00 00 00 BD`); NTAG210/212 §8.5 (CC E1 10 06/10 00); NTAG203 §7.5 (CC E1 10 12 00, Lock
/// Control TLV `01 03 A0 10 44` before the empty NDEF TLV); MF0ULX1 §8.5 (CFG1 `00 05 00 00`: VCTID 05);
/// MF0ICU2 §7.5 (AUTH0 30h = no protection, default key "BREAKMEIFYOUCAN!"). Ultralight and Ultralight
/// EV1 leave the factory with a blank OTP page; these virtual ones come NFC-formatted like retail NFC
/// stickers, with the CC the reference notes give (E1 10 06 00 / E1 10 10 00 / E1 10 12 00).
struct VirtualType2FactoryImage {
    var capabilityContainer: [UInt8]
    /// Bytes from page 4 on.
    var userArea: [UInt8] = [0x03, 0x00, 0xFE, 0x00]
    var dynamicLockPage: [UInt8] = [0x00, 0x00, 0x00, 0xBD]
    var cfg0: [UInt8] = [0x00, 0x00, 0x00, 0xFF]
    var cfg1: [UInt8] = [0x00, 0x00, 0x00, 0x00]

    static func forModel(_ model: VirtualType2Model) -> VirtualType2FactoryImage {
        switch model {
        case .ultralight: VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x06, 0x00])
        case .ultralightC:
            VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x12, 0x00], dynamicLockPage: [0, 0, 0, 0],
                                     cfg0: [0x30, 0x00, 0x00, 0x00])
        case .ultralightEV1_11:
            VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x06, 0x00], cfg1: [0x00, 0x05, 0x00, 0x00])
        case .ultralightEV1_21:
            VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x10, 0x00], cfg1: [0x00, 0x05, 0x00, 0x00])
        case .ntag203:
            VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x12, 0x00],
                                     userArea: [0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE],
                                     dynamicLockPage: [0, 0, 0, 0])
        case .ntag210: VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x06, 0x00])
        case .ntag212: VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x10, 0x00])
        case .ntag213: VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x12, 0x00], cfg0: [0x04, 0, 0, 0xFF])
        case .ntag215: VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x3E, 0x00], cfg0: [0x04, 0, 0, 0xFF])
        case .ntag216: VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, 0x6D, 0x00], cfg0: [0x04, 0, 0, 0xFF])
        case .custom:
            // Unknown delivery state: a CC sized from the map when there is one, else a blank OTP page.
            if let map = model.memoryMap {
                VirtualType2FactoryImage(capabilityContainer: [0xE1, 0x10, UInt8(min(map.userBytes / 8, 255)), 0x00])
            } else {
                VirtualType2FactoryImage(capabilityContainer: [0, 0, 0, 0], userArea: [])
            }
        }
    }

    /// The Ultralight C factory key "BREAKMEIFYOUCAN!" (MF0ICU2 §7.5.7), as it sits in pages 44–47.
    static let ultralightCDefaultKey: [UInt8] = Array("BREAKMEIFYOUCAN!".utf8)

    /// The whole memory of a fresh `model` tag with `uid` (7 bytes; shorter UIDs are zero-padded in the
    /// manufacturer pages).
    static func memory(model: VirtualType2Model, uid: [UInt8]) -> [UInt8] {
        let image = forModel(model)
        var memory = [UInt8](repeating: 0, count: model.totalPages * 4)
        let serial = Array((uid + [UInt8](repeating: 0, count: 7)).prefix(7))
        // Pages 0-2: UID0-2, BCC0 = 88h ^ UID0 ^ UID1 ^ UID2, UID3-6, BCC1 = UID3 ^ … ^ UID6, internal 48h, lock 00 00.
        let manufacturer = Array(serial[0..<3]) + [ISO14443.bcc([0x88] + serial[0..<3])] + Array(serial[3..<7])
            + [ISO14443.bcc(Array(serial[3..<7])), 0x48, 0x00, 0x00]
        put(manufacturer, at: 0, in: &memory)
        put(image.capabilityContainer, at: 12, in: &memory)
        put(image.userArea, at: 16, in: &memory)
        guard let map = model.memoryMap else { return memory }
        if let lockPage = map.dynamicLockPage { put(image.dynamicLockPage, at: lockPage * 4, in: &memory) }
        if let keyPages = map.keyPages {
            // Ultralight C: AUTH0 (page 42 byte 0), AUTH1 (page 43), key.
            if let configPage = map.configPage { put(image.cfg0, at: configPage * 4, in: &memory) }
            put(ultralightCDefaultKey, at: keyPages.lowerBound * 4, in: &memory)
        } else if let configPage = map.configPage {
            put(image.cfg0, at: configPage * 4, in: &memory)
            put(image.cfg1, at: (configPage + 1) * 4, in: &memory)
            if let pwd = map.passwordPage { put([0xFF, 0xFF, 0xFF, 0xFF], at: pwd * 4, in: &memory) }
        }
        return memory
    }

    private static func put(_ bytes: [UInt8], at offset: Int, in memory: inout [UInt8]) {
        for (index, byte) in bytes.enumerated() where memory.indices.contains(offset + index) {
            memory[offset + index] = byte
        }
    }
}
