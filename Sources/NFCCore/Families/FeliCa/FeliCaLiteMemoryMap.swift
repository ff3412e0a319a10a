/// The blocks of FeliCa Lite and Lite-S, all reached through service 000Bh (FeliCa Lite-S user's
/// manual §2.3, Table 2-1). `readable` is false for blocks that cannot be read on their own: RC and CK
/// are write-only, MAC and MAC_A only come back behind other blocks in a MAC-checked read.
public enum FeliCaLiteMemoryMap {
    /// One block of the map.
    public struct Entry: Sendable, Hashable {
        public var number: Int
        public var name: String
        public var readable: Bool
    }

    /// Blocks one Read Without Encryption may ask for on a Lite or Lite-S (FeliCa Lite-S user's manual
    /// §4.4.2, "Number of Blocks": 1 to 4; the same in the FeliCa Lite user's manual): a larger block
    /// list is refused as a whole (status A2h).
    public static let blocksPerRead = 4

    /// Lite (RC-S965) blocks.
    public static let lite: [Entry] =
        (0x00...0x0D).map { Entry(number: $0, name: "S_PAD\($0)", readable: true) } + [
            Entry(number: 0x0E, name: "REG", readable: true),
            Entry(number: 0x80, name: "RC", readable: false),
            Entry(number: 0x81, name: "MAC", readable: false),
            Entry(number: 0x82, name: "ID", readable: true),
            Entry(number: 0x83, name: "D_ID", readable: true),
            Entry(number: 0x84, name: "SER_C", readable: true),
            Entry(number: 0x85, name: "SYS_C", readable: true),
            Entry(number: 0x86, name: "CKV", readable: true),
            Entry(number: 0x87, name: "CK", readable: false),
            Entry(number: 0x88, name: "MC", readable: true),
        ]

    /// Lite-S (RC-S966) blocks: the Lite map plus WCNT, MAC_A and STATE.
    public static let liteS: [Entry] = lite + [
        Entry(number: 0x90, name: "WCNT", readable: true),
        Entry(number: 0x91, name: "MAC_A", readable: false),
        Entry(number: 0x92, name: "STATE", readable: true),
    ]

    /// The map of `type`, or nil when it is not a Lite-family type.
    public static func forType(_ type: CardType) -> [Entry]? {
        switch type {
        case .felicaLite: lite
        case .felicaLiteS: liteS
        default: nil
        }
    }
}
