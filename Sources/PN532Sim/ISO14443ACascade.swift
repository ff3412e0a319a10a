
/// UID cascade levels of ISO/IEC 14443-3 §6.5.4: what a tag answers to ANTICOLLISION at each level.
enum ISO14443ACascade {
    /// Cascade tag that fills the first byte of a level that is not the last one.
    static let cascadeTag: UInt8 = 0x88
    /// SAK bit 2: "UID not complete" (ISO/IEC 14443-3 Table 8).
    static let uidIncompleteBit: UInt8 = 0x04
    /// SEL codes of cascade levels 1–3.
    static let selectCodes: [UInt8] = [0x93, 0x95, 0x97]

    /// The 4-byte UID CLn of each cascade level: 4-byte UIDs have one level, 7-byte two
    /// (`88 u0 u1 u2`, `u3…u6`), 10-byte three.
    static func levels(of uid: [UInt8]) -> [[UInt8]] {
        switch uid.count {
        case 7: [[cascadeTag] + uid[0..<3], Array(uid[3..<7])]
        case 10: [[cascadeTag] + uid[0..<3], [cascadeTag] + uid[3..<6], Array(uid[6..<10])]
        default: [Array(uid.prefix(4))]
        }
    }

    /// CLn followed by its BCC: the ANTICOLLISION answer.
    static func anticollisionAnswer(level: [UInt8]) -> [UInt8] {
        level + [AirChecksum.bcc(level)]
    }

    /// Turns the cascaded UID form that InListPassiveTarget takes (`88 u0 u1 u2 u3 … u6`) back into
    /// the UID; a plain UID stays as it is.
    static func uid(fromCascaded bytes: [UInt8]) -> [UInt8] {
        if bytes.count == 8, bytes[0] == cascadeTag { return Array(bytes.dropFirst()) }
        if bytes.count == 12, bytes[0] == cascadeTag, bytes[4] == cascadeTag {
            return Array(bytes[1..<4] + bytes[5..<12])
        }
        return bytes
    }
}
