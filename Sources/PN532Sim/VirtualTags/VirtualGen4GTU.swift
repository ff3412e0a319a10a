/// The "magic" Gen4 GTU card ("Ultimate Magic Card", scenario `magic: gen4`) as far as the simulator
/// models it: its password-protected command prefix CFh (Proxmark3 doc/magic_cards_notes.md, "UMC",
/// "Special raw commands summary": `CF <4-byte password> <sub-command> …`, factory password 00000000),
/// of which only the version read is answered — `CF <password> CC` → `00 00 00 06 A0` (the notes:
/// `00 00 00 03 A0` old, `06 A0` new). Every other CFh frame, and one with another password, gets no
/// answer here (the configuration, backdoor read / write and password commands are not modelled). A
/// genuine NXP card has no CFh: its own command set refuses it.
enum VirtualGen4GTU {
    /// The prefix of every Gen4 GTU command.
    static let prefix: UInt8 = 0xCF
    /// The factory password.
    static let factoryPassword: [UInt8] = [0x00, 0x00, 0x00, 0x00]
    /// The version sub-command and its answer.
    static let version: UInt8 = 0xCC
    static let versionAnswer: [UInt8] = [0x00, 0x00, 0x00, 0x06, 0xA0]

    /// The card's answer to `frame` (CRC stripped) when it is a Gen4 command; nil otherwise (the tag's
    /// own command set takes it).
    static func answer(_ frame: [UInt8]) -> VirtualTagReply? {
        guard frame.first == prefix else { return nil }
        guard frame.count == 6, Array(frame[1...4]) == factoryPassword, frame[5] == version else { return .silent }
        return .data(versionAnswer)
    }
}
