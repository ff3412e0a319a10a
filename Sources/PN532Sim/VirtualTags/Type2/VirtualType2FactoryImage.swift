
/// The memory a fresh tag leaves the factory with, from its ``VirtualType2Product`` row (the sections
/// are cited there), NFC Forum formatted (Flipper's `nfc_data_generator.c` does the same for its
/// factory-fresh tags). Ultralight and Ultralight EV1 leave the factory with a blank OTP page; these
/// virtual ones come NFC-formatted like retail NFC stickers, with the CC the reference notes give
/// (E1 10 06 00 / E1 10 10 00 / E1 10 12 00).
enum VirtualType2FactoryImage {
    /// The Ultralight C factory key "BREAKMEIFYOUCAN!" as it sits in pages 2Ch–2Fh (MF0ICU2 §7.5.10 Table 13).
    static let ultralightCDefaultKey: [UInt8] = Array("BREAKMEIFYOUCAN!".utf8)

    /// The whole memory of a fresh `model` tag with `uid` (7 bytes; shorter UIDs are zero-padded in the
    /// manufacturer pages).
    static func memory(model: VirtualType2Model, uid: [UInt8]) -> [UInt8] {
        let product = model.product
        var memory = [UInt8](repeating: 0, count: model.totalPages * 4)
        let serial = Array((uid + [UInt8](repeating: 0, count: 7)).prefix(7))
        // Pages 0-2: UID0-2, BCC0 = 88h ^ UID0 ^ UID1 ^ UID2, UID3-6, BCC1 = UID3 ^ … ^ UID6, internal 48h,
        // lock 00 00 (MF0ICU1 §7.5.1, NTAG213/215/216 §8.5.1).
        let manufacturer = Array(serial[0..<3]) + [AirChecksum.bcc([0x88] + serial[0..<3])] + Array(serial[3..<7])
            + [AirChecksum.bcc(Array(serial[3..<7])), 0x48, 0x00, 0x00]
        put(manufacturer, at: 0, in: &memory)
        // A custom model without a matching map: unknown delivery state, a blank OTP page.
        guard let map = model.memoryMap else { return memory }
        put(product.factoryCC, at: 12, in: &memory)
        put(product.factoryUserArea, at: 16, in: &memory)
        if let lockPage = map.dynamicLockPage { put(product.factoryDynamicLock, at: lockPage * 4, in: &memory) }
        switch map.protection {
        case .none:
            break
        case let .password(config, pwd, _):
            put(product.factoryCFG0, at: config * 4, in: &memory)
            put(product.factoryCFG1, at: (config + 1) * 4, in: &memory)
            put([0xFF, 0xFF, 0xFF, 0xFF], at: pwd * 4, in: &memory)
        case let .tripleDES(auth0Page, keyPages):
            put(product.factoryCFG0, at: auth0Page * 4, in: &memory)
            put(ultralightCDefaultKey, at: keyPages.lowerBound * 4, in: &memory)
        }
        return memory
    }

    private static func put(_ bytes: [UInt8], at offset: Int, in memory: inout [UInt8]) {
        for (index, byte) in bytes.enumerated() where memory.indices.contains(offset + index) {
            memory[offset + index] = byte
        }
    }
}
