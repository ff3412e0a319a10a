/// What a (permanent) lock did. Returned only after the lock bits and the capability container were read
/// back and found set.
public struct LockReport: Sendable, Hashable {
    /// UID (IDm for FeliCa) of the tag locked.
    public var uid: [UInt8]
    /// Its card type.
    public var cardType: CardType
    /// Type 2 pages or Type 3 blocks written (CC, dynamic lock page, static lock page; or the attribute
    /// block), in write order. Empty when the tag was already locked.
    public var pagesWritten: [Int]
    /// The capability container as read back: page 3 on Type 2 (write access 0Fh), the attribute block on
    /// Type 3 (RWFlag 00h).
    public var capabilityContainer: [UInt8]
    /// The lock bytes as read back: page 2 bytes 2–3, then bytes 0–2 of the dynamic lock page when the
    /// product has one. Empty for Type 3.
    public var lockBytes: [UInt8]

    /// Creates a report.
    public init(uid: [UInt8], cardType: CardType, pagesWritten: [Int], capabilityContainer: [UInt8],
                lockBytes: [UInt8]) {
        self.uid = uid
        self.cardType = cardType
        self.pagesWritten = pagesWritten
        self.capabilityContainer = capabilityContainer
        self.lockBytes = lockBytes
    }
}
