/// Which MIFARE Classic product a block image (libnfc MFD, Proxmark3 `hf mf` dump, `.eml`, `mfc v2`
/// JSON) is a dump of, and whether it is cut: a `--partial` export holds the whole sectors before the
/// first one not read (``ClassicBlockImage/readBlockCount(partial:format:)``), so its size can be
/// another product's whole memory — a 1K cut before sector 5 is 320 bytes, a Mini's size; a 4K cut
/// before sector 32 is 2048 bytes, a Plus 2K's. The size alone cannot tell them apart; the SAK can:
/// the card's own (Proxmark3 JSON `Card.SAK`) or the one the manufacturer block holds (block 0: UID,
/// BCC for a 4-byte UID, SAK, ATQA, manufacturer data; MF1S50yyX §8.6.1), found as Proxmark3 finds it
/// (``sakInManufacturerBlock(_:)``).
///
/// The rule, in order:
/// 1. a whole product's size whose SAK agrees (or no SAK is known): that product, complete;
/// 2. a product with that SAK whose memory is larger and has a sector boundary at the image's end:
///    that product, cut (Mini SAK 09h, 1K and Plus 2K 08h, 4K 18h; AN10833 §3.2);
/// 3. a whole product's size (a SAK that names no product fitting: a clone's manufacturer block);
/// 4. else none.
struct ClassicImageIdentity: Equatable {
    let fileType: ClassicFileType
    /// 16-byte blocks in the image.
    let blockCount: Int

    /// True when the image ends before the product's memory does.
    var isCut: Bool { blockCount < fileType.layout.totalBlocks }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fileType.type == rhs.fileType.type && lhs.blockCount == rhs.blockCount
    }

    /// The identity of an image of `byteCount` bytes from a card that answered `sak` (nil: unknown).
    init?(byteCount: Int, sak: UInt8?) {
        guard byteCount > 0, byteCount % 16 == 0 else { return nil }
        let blocks = byteCount / 16
        let whole = ClassicFileType.forMFDSize(byteCount)
        if let whole, sak == nil || whole.sak == sak {
            self.init(fileType: whole, blockCount: blocks)
        } else if let sak, let cut = ClassicFileType.rows.first(where: { $0.sak == sak && $0.layout.endsASector(atBlock: blocks) }) {
            self.init(fileType: cut, blockCount: blocks)
        } else if let whole {
            self.init(fileType: whole, blockCount: blocks)
        } else {
            return nil
        }
    }

    private init(fileType: ClassicFileType, blockCount: Int) {
        self.fileType = fileType
        self.blockCount = blockCount
    }

    /// The identity of a raw block image, the SAK read from its manufacturer block. A cut image whose
    /// first bytes are a Type 2 page image's (valid BCC0 and BCC1: ``Type2PageImage/hasValidBCC(_:at:)``)
    /// is not taken: its "SAK" is a UID byte.
    init?(image bytes: [UInt8]) {
        self.init(byteCount: bytes.count, sak: Self.sakInManufacturerBlock(bytes))
        if isCut, Type2PageImage.hasValidBCC(bytes, at: 0) { return nil }
    }

    /// The SAK the manufacturer block holds, read as the Proxmark3 client reads it when it saves a
    /// dump (RRG `client/src/fileutils.c` `pm3_save_mf_dump`): a 4-byte UID when byte 4 is the UID's
    /// BCC and the ATQA (bytes 6–7, wire order) has the single-size bits clear, SAK in byte 5; else a
    /// 7-byte UID when byte 8 has the double-size UID bits (40h of C0h), SAK in byte 7 (ISO/IEC 14443-3
    /// §6.3.2: ATQA bits 8–7 give the UID size). Nil when neither fits.
    static func sakInManufacturerBlock(_ bytes: [UInt8]) -> UInt8? {
        guard bytes.count >= 16 else { return nil }
        if ISO14443.bcc(Array(bytes[0..<4])) == bytes[4], bytes[6] & 0xC0 == 0 { return bytes[5] }
        if bytes[8] & 0xC0 == 0x40 { return bytes[7] }
        return nil
    }

    /// Why `byteCount` bytes are not a Classic image, for the refusal.
    static func refusal(byteCount: Int, sak: UInt8?) -> String {
        let sizes = ClassicFileType.mfdSizes.sorted().map(String.init).joined(separator: ", ")
        let why = sak.map { "no product answering SAK \($0.hexString)h has a sector boundary there" }
            ?? "a cut (--partial) image needs the SAK in its manufacturer block to say which product it is"
        return "\(byteCount) bytes is not the size of a MIFARE Classic image (whole: \(sizes) bytes; \(why))"
    }
}

extension ClassicLayout {
    /// True when `blocks` is the first block of a sector after sector 0 (the end of a cut image), and
    /// less than the whole memory.
    func endsASector(atBlock blocks: Int) -> Bool {
        blocks > 0 && blocks < totalBlocks && (1..<sectorCount).contains { firstBlock(ofSector: $0) == blocks }
    }
}
