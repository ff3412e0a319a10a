import NFCCore

/// The pseudo-APDUs (class FFh) a PC/SC contactless reader understands, and the decoding of their
/// answers (PC/SC Specifications Part 3 v2.02 §3.2.2.1 "Storage card functionality support"). Pure
/// functions: no pcsc-lite call here, so every encoding is unit-tested.
enum PCSCPseudoAPDU {
    /// GET DATA (§3.2.2.1.3) `FF CA P1 00 00`. P1 00h: the UID (PC/SC part 3). P1 01h: the ATS with its
    /// TL byte (ACR1252U reference manual §5.2.4.1); 02h / 03h: the SAK and the ATQA (MSB first), vendor
    /// extensions in either order (libnfc's `pcsc` driver asks Feitian readers for 02 SAK, 03 ATQA), told
    /// apart by their length. Readers without them refuse (6A 81) and the ATR's card name stands in.
    enum GetData: UInt8 {
        case uid = 0x00
        case ats = 0x01
        case sak = 0x02
        case atqa = 0x03
    }

    /// `FF CA P1 00 00`.
    static func getData(_ what: GetData) -> [UInt8] { [0xFF, 0xCA, what.rawValue, 0x00, 0x00] }

    /// READ BINARY (§3.2.2.1.8) `FF B0 MSB LSB Le`: `length` bytes from block (page) `block`; 00 asks for
    /// the whole block.
    static func readBinary(block: Int, length: UInt8) -> [UInt8] {
        [0xFF, 0xB0, UInt8((block >> 8) & 0xFF), UInt8(block & 0xFF), length]
    }

    /// UPDATE BINARY (§3.2.2.1.9) `FF D6 MSB LSB Lc data`.
    static func updateBinary(block: Int, data: [UInt8]) -> [UInt8] {
        [0xFF, 0xD6, UInt8((block >> 8) & 0xFF), UInt8(block & 0xFF), UInt8(data.count)] + data
    }

    /// The key slot of the reader's volatile memory NFCBridge loads Classic keys into.
    static let keySlot: UInt8 = 0x00

    /// LOAD KEYS (§3.2.2.1.4) `FF 82 00 slot 06 key`: P1 00h = volatile memory, plain transmission.
    static func loadKey(_ key: [UInt8]) -> [UInt8] { [0xFF, 0x82, 0x00, keySlot, UInt8(key.count)] + key }

    /// GENERAL AUTHENTICATE (§3.2.2.1.6) `FF 86 00 00 05 01 MSB LSB type slot`: version 01h, the block,
    /// key type 60h (MIFARE key A) or 61h (key B), the key slot.
    static func generalAuthenticate(block: Int, keyType: ClassicKeyType) -> [UInt8] {
        [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, UInt8((block >> 8) & 0xFF), UInt8(block & 0xFF),
         keyType == .a ? 0x60 : 0x61, keySlot]
    }

    // MARK: Transparent session (PC/SC part 3 §3.2.2.1.12–14, supplement "Transparent Session")

    /// MANAGE SESSION `FF C2 00 00 Lc DO`: data object 81h 00h starts a transparent session.
    static let startSession: [UInt8] = [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00]
    /// MANAGE SESSION with data object 82h 00h: ends it.
    static let endSession: [UInt8] = [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x82, 0x00]

    /// TRANSPARENT EXCHANGE `FF C2 00 01 Lc DOs`: data object 90h (transmission and reception flags,
    /// 00 00: the reader appends and checks the CRC and the parity) then 95h (transceive) with `frame`.
    static func transparentExchange(_ frame: [UInt8]) -> [UInt8] {
        let objects: [UInt8] = [0x90, 0x02, 0x00, 0x00, 0x95] + berLength(frame.count) + frame
        return [0xFF, 0xC2, 0x00, 0x01, UInt8(objects.count)] + objects
    }

    /// A BER-TLV length (one byte up to 127, else 81h + one byte; frames stay below 256 bytes).
    static func berLength(_ count: Int) -> [UInt8] {
        count < 0x80 ? [UInt8(count)] : [0x81, UInt8(count & 0xFF)]
    }

    /// What a transparent exchange's data objects said.
    struct TransparentAnswer: Equatable {
        /// The generic error status (C0h) SW1 SW2: 90 00 when the exchange went through.
        var status: (UInt8, UInt8)
        /// The card's answer (97h, "ICC response"), without CRC.
        var data: [UInt8]
        /// Valid bits in the last byte (92h, "response bit framing"): 4 for a Type 2 ACK/NAK; 0 or absent
        /// for whole bytes.
        var lastByteBits: UInt8?

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.status == rhs.status && lhs.data == rhs.data && lhs.lastByteBits == rhs.lastByteBits
        }
    }

    /// Reads the data objects of a transparent exchange's answer (status word removed). Unknown data
    /// objects are skipped. Throws ``NFCError/invalidResponse(_:)`` when a length runs past the end.
    static func parseTransparentAnswer(_ bytes: [UInt8]) throws(NFCError) -> TransparentAnswer {
        var answer = TransparentAnswer(status: (0x90, 0x00), data: [], lastByteBits: nil)
        var index = 0
        while index < bytes.count {
            var tag = Int(bytes[index])
            index += 1
            // Two-byte tags (5F 46 timer, …): the first byte's low five bits all set (ISO/IEC 7816-4 §5.2.2.1).
            if tag & 0x1F == 0x1F {
                guard index < bytes.count else { throw .invalidResponse(bytes) }
                tag = tag << 8 | Int(bytes[index])
                index += 1
            }
            guard index < bytes.count else { throw .invalidResponse(bytes) }
            var length = Int(bytes[index])
            index += 1
            if length == 0x81 {
                guard index < bytes.count else { throw .invalidResponse(bytes) }
                length = Int(bytes[index])
                index += 1
            } else if length == 0x82 {
                guard index + 1 < bytes.count else { throw .invalidResponse(bytes) }
                length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
                index += 2
            }
            guard index + length <= bytes.count else { throw .invalidResponse(bytes) }
            let value = Array(bytes[index..<(index + length)])
            index += length
            switch tag {
            case 0xC0 where value.count >= 3: answer.status = (value[1], value[2])
            case 0x92 where value.count >= 1: answer.lastByteBits = value[0]
            case 0x97: answer.data = value
            default: break
            }
        }
        return answer
    }

    // MARK: Status words

    /// Splits an answer into data and status word; nil when it is shorter than a status word.
    static func split(_ answer: [UInt8]) -> (data: [UInt8], sw1: UInt8, sw2: UInt8)? {
        guard answer.count >= 2 else { return nil }
        return (Array(answer.dropLast(2)), answer[answer.count - 2], answer[answer.count - 1])
    }

    /// True for the status words a reader answers a pseudo-APDU it does not implement with:
    /// 6A 81 (function not supported), 6D 00 (instruction), 6E 00 (class), 68 00 / 68 81 / 68 82 (CLA functions),
    /// 6A 86 / 6B 00 (wrong P1 P2).
    static func meansUnsupported(sw1: UInt8, sw2: UInt8) -> Bool {
        switch (sw1, sw2) {
        case (0x6A, 0x81), (0x6D, 0x00), (0x6E, 0x00), (0x68, _), (0x6A, 0x86), (0x6B, 0x00): true
        default: false
        }
    }

    /// The ISO/IEC 15693-3 error code (its "Response error code definition" table) that stands for a
    /// refused `FF B0` / `FF D6` to a vicinity tag, so NFCCore sees the `01 <code>` frame the tag would
    /// have sent: 6A 82 / 6B 00 / 6A 86 (block out of range) → 10h block not available; 69 82 / 69 86
    /// (not allowed) → 12h block locked; 65 81 (memory failure) → 13h not programmed; anything else 0Fh.
    static func iso15693ErrorCode(sw1: UInt8, sw2: UInt8) -> UInt8 {
        switch (sw1, sw2) {
        case (0x6A, 0x82), (0x6B, 0x00), (0x6A, 0x86): 0x10
        case (0x69, 0x82), (0x69, 0x86): 0x12
        case (0x65, 0x81): 0x13
        default: 0x0F
        }
    }

    /// The ATS a reader gave for `FF CA 01`, without its TL byte when it kept it (TL = the ATS length).
    static func atsWithoutLength(_ data: [UInt8]) -> [UInt8] {
        if let first = data.first, Int(first) == data.count { return Array(data.dropFirst()) }
        return data
    }
}
