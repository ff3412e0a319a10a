/// What an NDEF write (or a format, which writes an empty message) did to the tag. Returned only after
/// the tag was read back and matched what was written.
public struct WriteReport: Sendable, Hashable {
    /// UID (IDm for FeliCa) of the tag written.
    public var uid: [UInt8]
    /// Its card type.
    public var cardType: CardType
    /// Length of the NDEF message now on the tag.
    public var messageLength: Int
    /// Bytes sent to the tag: 4 per Type 2 page, 16 per Type 3 block, the message plus NLEN on Type 4.
    public var bytesWritten: Int
    /// Type 2 pages or Type 3 blocks written, in write order and without repeats; empty for Type 4.
    /// Pages whose content was already right are not written and not listed.
    public var pagesWritten: [Int]
    /// The capability container after the operation: page 3 on Type 2, the attribute block on Type 3,
    /// the CC file on Type 4.
    public var capabilityContainer: [UInt8]

    /// Creates a report.
    public init(uid: [UInt8], cardType: CardType, messageLength: Int, bytesWritten: Int, pagesWritten: [Int],
                capabilityContainer: [UInt8]) {
        self.uid = uid
        self.cardType = cardType
        self.messageLength = messageLength
        self.bytesWritten = bytesWritten
        self.pagesWritten = pagesWritten
        self.capabilityContainer = capabilityContainer
    }
}
