/// The ISO 15693 products the simulator models — its own datasheet table (never NFCCore's).
public struct VirtualISO15693Model: Sendable, Hashable {
    /// Product name.
    public var name: String
    /// UID bytes fixed by the product, MSB first: `E0`, the ISO/IEC 7816-6 manufacturer code, then
    /// product bytes; the rest of the 8-byte UID is the serial number.
    public var uidPrefix: [UInt8]
    /// User memory.
    public var blockCount: Int
    public var blockSize: Int
    /// IC reference of GET SYSTEM INFORMATION.
    public var icReference: UInt8
    /// GET SYSTEM INFORMATION's information flags (bit 1 DSFID, 2 AFI, 3 memory size, 4 IC reference):
    /// products with more than 256 blocks leave the memory size out.
    public var systemInfoFlags: UInt8
    /// The ISO/IEC 15693-3 command codes (01h–3Fh) the product's datasheet lists, and the one custom
    /// command modelled (READ SIGNATURE BDh, where the datasheet has it). Every other code is answered
    /// error 01h (command not supported), as the chip does. A listed code the simulator does not model
    /// (``VirtualISO15693Command/modelled``) is answered error 0Fh ("no information given", ISO/IEC
    /// 15693-3 §7.4): an ISO 15693 error, neither silence nor a claim that the chip lacks it. The
    /// products' other custom commands (A0h–DFh: EAS, passwords, configuration, mailbox) are not in
    /// these sets and get error 01h.
    public var commands: Set<UInt8>
    /// The most blocks one READ MULTIPLE BLOCKS (23h; with the EXTENDED commands also 33h) returns
    /// where ``commands`` has it; nil reads none.
    public var readMultipleBlocks: Int?
    /// Card name in a PC/SC part 3 reader's ATR (``PCSCAnswerToReset/CardName``).
    public var pcscCardName: [UInt8]

    /// Has EXTENDED READ/WRITE SINGLE BLOCK (30h/31h) and EXTENDED GET SYSTEM INFORMATION (3Bh);
    /// setting it adds or removes those three codes.
    public var hasExtendedCommands: Bool {
        get { commands.isSuperset(of: Self.extendedCommands) }
        set {
            if newValue { commands.formUnion(Self.extendedCommands) } else { commands.subtract(Self.extendedCommands) }
        }
    }

    /// Has LOCK BLOCK (22h); setting it adds or removes the code.
    public var hasLockBlock: Bool {
        get { commands.contains(VirtualISO15693Command.lockBlock) }
        set {
            if newValue { commands.insert(VirtualISO15693Command.lockBlock) } else { commands.remove(VirtualISO15693Command.lockBlock) }
        }
    }

    private static let extendedCommands: Set<UInt8> = [
        VirtualISO15693Command.extendedReadSingleBlock, VirtualISO15693Command.extendedWriteSingleBlock,
        VirtualISO15693Command.extendedGetSystemInformation,
    ]

    /// ST25DV64K (STMicroelectronics DS10925, ST25DV04K/16K/64K datasheet): 64 kbit, 2048 blocks of
    /// 4 bytes; UID `E0 02 26 …` (manufacturer 02h, IC_REF 26h for the -IE parts, "Unique identifier");
    /// "Get System Info" gives info flags 0Bh — no memory size, which needs two bytes — and "Extended Get
    /// System Info" (3Bh) the size; the EXTENDED commands reach every block. No LOCK BLOCK (22h) and no
    /// EXTENDED LOCK BLOCK (32h): the ST25DV protects areas with passwords ("Data protection"). "Read
    /// Multiple Blocks" (23h, up to 256 blocks in its one-byte count) and "Extended Read Multiple Blocks"
    /// (33h, the whole memory). Its ISO/IEC 15693 command list ("RF command sets", command codes): 01h,
    /// 02h, 20h, 21h, 23h, 24h (Write Multiple Blocks, up to 4), 25h, 26h, 27h–2Ah (AFI, DSFID), 2Bh,
    /// 2Ch, 30h, 31h, 33h, 34h, 3Bh, 3Ch.
    public static let st25dv64k = VirtualISO15693Model(
        name: "ST25DV64K", uidPrefix: [0xE0, 0x02, 0x26], blockCount: 2048, blockSize: 4, icReference: 0x26,
        systemInfoFlags: 0x0B,
        commands: [0x01, 0x02, 0x20, 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x30, 0x31,
                   0x33, 0x34, 0x3B, 0x3C],
        readMultipleBlocks: 2048, pcscCardName: PCSCAnswerToReset.CardName.unnamed)

    /// ICODE SLIX (NXP SL2S2002): 28 user blocks of 4 bytes ("Memory organization"); UID `E0 04 01`
    /// with the type indicator 10b in UID bits 37–36 ("Unique identifier": byte 3 = 1xh for SLIX);
    /// GET SYSTEM INFORMATION gives info flags 0Fh, memory size 1B 03, IC reference 01h; LOCK BLOCK is
    /// there; the EXTENDED commands (30h–3Ch) and WRITE MULTIPLE BLOCKS (24h) are not, and get error 01h
    /// (command not supported). READ MULTIPLE BLOCKS (23h) is among its ISO/IEC 15693 commands, over the
    /// whole user memory. Its ISO/IEC 15693 command list ("Supported commands"): 01h, 02h, 20h–23h, 25h,
    /// 26h, 27h–2Ah (AFI, DSFID), 2Bh, 2Ch.
    public static let icodeSLIX = VirtualISO15693Model(
        name: "ICODE SLIX", uidPrefix: [0xE0, 0x04, 0x01, 0x10], blockCount: 28, blockSize: 4, icReference: 0x01,
        systemInfoFlags: 0x0F,
        commands: [0x01, 0x02, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C],
        readMultipleBlocks: 28, pcscCardName: PCSCAnswerToReset.CardName.icodeSLI)
}

extension VirtualISO15693Model {
    /// ICODE SLIX2 (NXP SL2S2602, Rev. 4.1): 80 blocks of 4 bytes ("Memory organization", block 79 the
    /// 16-bit counter, kept as plain memory here); UID `E0 04 01` with the type indicator 01b in UID
    /// bits 37–36 (byte 3 = 08h for the serials modelled); GET SYSTEM INFORMATION as the SLIX (info
    /// flags 0Fh, memory size 4F 03; IC reference 01h, the SLIX's value: not checked against the SLIX2
    /// datasheet's GET SYSTEM INFORMATION answer). Its ISO/IEC 15693 commands are the SLIX's
    /// (01h, 02h, 20h–23h, 25h, 26h, 27h–2Ah, 2Bh, 2Ch); of its NXP custom commands only READ SIGNATURE
    /// (BDh, §9.5.3.20: flags, BDh, IC Mfg code 04h, optional UID; answer flags 00h and a 32-byte ECC
    /// signature programmed at production) is modelled.
    public static let icodeSLIX2 = VirtualISO15693Model(
        name: "ICODE SLIX2", uidPrefix: [0xE0, 0x04, 0x01, 0x08], blockCount: 80, blockSize: 4, icReference: 0x01,
        systemInfoFlags: 0x0F,
        commands: [0x01, 0x02, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C,
                   VirtualISO15693Command.readSignature],
        readMultipleBlocks: 80, pcscCardName: PCSCAnswerToReset.CardName.icodeSLI)

    /// Answers READ SIGNATURE (BDh).
    public var hasReadSignature: Bool { commands.contains(VirtualISO15693Command.readSignature) }
}

/// ISO/IEC 15693-3 command codes the virtual tags answer ("Command codes" table), and the error codes
/// of an error response ("Response error code definition").
enum VirtualISO15693Command {
    static let inventory: UInt8 = 0x01, stayQuiet: UInt8 = 0x02
    static let readSingleBlock: UInt8 = 0x20, writeSingleBlock: UInt8 = 0x21, lockBlock: UInt8 = 0x22
    static let readMultipleBlocks: UInt8 = 0x23, select: UInt8 = 0x25, resetToReady: UInt8 = 0x26
    static let getSystemInformation: UInt8 = 0x2B
    static let writeMultipleBlocks: UInt8 = 0x24, extendedWriteMultipleBlocks: UInt8 = 0x34
    static let extendedReadSingleBlock: UInt8 = 0x30, extendedWriteSingleBlock: UInt8 = 0x31
    static let extendedLockBlock: UInt8 = 0x32, extendedReadMultipleBlocks: UInt8 = 0x33
    static let extendedGetSystemInformation: UInt8 = 0x3B
    /// NXP custom command READ SIGNATURE (ICODE SLIX2 datasheet §9.5.3.20).
    static let readSignature: UInt8 = 0xBD
    /// Custom commands (ISO/IEC 15693-3 "Command codes": A0h–DFh) carry the IC manufacturer code as their
    /// first parameter, before the UID.
    static let customCommands: ClosedRange<UInt8> = 0xA0...0xDF
    /// The signature READ SIGNATURE answers: 256 bits (SL2S2602 Table 78).
    static let signatureLength = 32

    /// The codes the virtual tags model, where the product lists them. WRITE MULTIPLE BLOCKS (24h, 34h),
    /// WRITE/LOCK AFI and DSFID (27h–2Ah) and GET MULTIPLE BLOCK SECURITY STATUS (2Ch, 3Ch) are not
    /// modelled: a product that lists them answers them error 0Fh (no information given) here, where the
    /// chip would carry them out.
    static let modelled: Set<UInt8> = [
        inventory, stayQuiet, readSingleBlock, writeSingleBlock, lockBlock, readMultipleBlocks, select, resetToReady,
        getSystemInformation, extendedReadSingleBlock, extendedWriteSingleBlock, extendedReadMultipleBlocks,
        extendedGetSystemInformation, readSignature,
    ]

    /// Request flags: bit 3 inventory; outside inventory bit 5 select, bit 6 address, bit 7 option.
    static let inventoryFlag: UInt8 = 0x04, selectFlag: UInt8 = 0x10, addressFlag: UInt8 = 0x20, optionFlag: UInt8 = 0x40

    static let errorNotSupported: UInt8 = 0x01, errorNotRecognised: UInt8 = 0x02, errorOption: UInt8 = 0x03
    static let errorUnknown: UInt8 = 0x0F
    static let errorBlockNotAvailable: UInt8 = 0x10, errorAlreadyLocked: UInt8 = 0x11, errorLocked: UInt8 = 0x12
}

/// The NFC Forum Type 5 Tag capability container the simulator writes for an `ndef:` scenario field
/// (NFC Forum T5T Technical Specification, "Capability Container"): magic E1h (E2h when blocks past 255
/// exist), version 1.0 with free access (40h), MLEN = the data area in 8-byte units, features (bit 0
/// READ MULTIPLE BLOCKS, bit 3 LOCK BLOCK). A data area over 2040 bytes takes the 8-byte form: MLEN 00h,
/// then bytes 6–7 the MLEN.
enum VirtualType5CapabilityContainer {
    static func make(_ model: VirtualISO15693Model) -> [UInt8] {
        let memory = model.blockCount * model.blockSize
        let magic: UInt8 = model.blockCount > 256 ? 0xE2 : 0xE1
        let features: UInt8 = 0x01 | (model.hasLockBlock ? 0x08 : 0x00)
        let short = (memory - 4) / 8
        if short <= 0xFF { return [magic, 0x40, UInt8(short), features] }
        let mlen = min((memory - 8) / 8, 0xFFFF)
        return [magic, 0x40, 0x00, features, 0x00, 0x00, UInt8(mlen >> 8), UInt8(mlen & 0xFF)]
    }
}
