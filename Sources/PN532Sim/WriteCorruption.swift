/// The `corrupt_next_write` fault: which commands are writes, and how the emulator spoils one.
/// The write still goes through and is acknowledged, but the data stored differs from the data
/// sent in its last byte — what a read-back verification must catch.
enum WriteCorruption {
    /// Flips every bit of the last byte.
    static func corrupted(_ bytes: [UInt8]) -> [UInt8] {
        guard let last = bytes.last else { return bytes }
        return bytes.dropLast() + [~last]
    }

    /// Type 2 WRITE `A2 page d0 d1 d2 d3` (NTAG21x datasheet §10.4).
    static func isType2Write(_ frame: [UInt8]) -> Bool {
        frame.count == 6 && frame[0] == 0xA2
    }

    /// ISO/IEC 7816-4 WRITE BINARY (D0h), UPDATE BINARY (D6h), UPDATE RECORD (DCh) with data,
    /// and DESFire WriteData (3Dh), native or ISO-wrapped (`90 3D`).
    static func isAPDUWrite(_ apdu: [UInt8]) -> Bool {
        if apdu.first == 0x3D { return apdu.count > 1 }
        guard apdu.count > 5 else { return false }
        if apdu[0] == 0x90 && apdu[1] == 0x3D { return true }
        return [0xD0, 0xD6, 0xDC].contains(apdu[1])
    }

    /// FeliCa Write Without Encryption (08h), without LEN.
    static func isFeliCaWrite(_ command: [UInt8]) -> Bool {
        command.count > 10 && command[0] == 0x08
    }
}
