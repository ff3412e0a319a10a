/// A virtual ISO/IEC 15693 (NFC-V, NFC Forum Type 5) tag.
///
/// ``VirtualTag/receive(_:)`` takes one ISO/IEC 15693-3 request as it goes on the air without SOF,
/// CRC and EOF — flags, command code, the UID least significant byte first when the address flag is
/// set, then the parameters — and answers ``VirtualTagReply/data(_:)`` with the response (flags
/// byte first: 00h, or 01h and an error code), or ``VirtualTagReply/silent`` when the request is
/// addressed to another UID or the tag is out of the field. ``VirtualTag/target``'s UID is MSB
/// first (`E0 …`), as NFCCore's `Target` holds it.
public protocol ISO15693VirtualTag: VirtualTag {
    /// Bytes per block.
    var blockSize: Int { get }
    /// Number of blocks.
    var blockCount: Int { get }
    /// The card name bytes a PC/SC part 3 reader puts in its ATR for this product
    /// (``PCSCAnswerToReset/CardName``).
    var pcscCardName: [UInt8] { get }
}
