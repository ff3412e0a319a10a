/// Flipper Zero `.nfc` export for ISO 15693 tags: `Device type: ISO15693-3`, file Version 4, the keys
/// Flipper's loader reads (flipperzero-firmware `lib/nfc/protocols/iso15693_3/iso15693_3.c`,
/// `iso15693_3_load` / `iso15693_3_save`):
///
///     Filetype: Flipper NFC device
///     Version: 4
///     Device type: ISO15693-3
///     UID: E0 04 01 50 12 34 56 78        MSB first, as on the tag and in the dump
///     DSFID: 00                           when the tag sent it
///     AFI: 00                             when the tag sent it
///     IC Reference: 01                    when the tag sent it
///     Lock DSFID: false
///     Lock AFI: false
///     Block Count: 28                     1–256
///     Block Size: 04                      hex, 1–32 bytes
///     Data Content: 00 11 22 33 …         every block, Block Count × Block Size bytes
///     Security Status: 00 01 …            one byte per block: 01 locked, 00 not
///
/// The loader reads `Security Status` as one byte per block only when both `Lock` keys are there
/// (otherwise as the legacy layout, a lock byte first), so both are always written. NFCBridge does not
/// read the DSFID and AFI lock state (GET SYSTEM INFORMATION does not report it): `false` there means
/// "not known to be locked"; `true` is written only for a lock the dump knows (one imported from a
/// Flipper file that said so, ``ISO15693SystemInfo/dsfidLocked``). The import is
/// FlipperISO15693Import.swift beside this file.
extension TagDump {
    /// The most blocks Flipper's ISO15693-3 file holds (its `Block Count` comment: 1..256; block
    /// numbers are one byte in its data model).
    static let flipperISO15693MaxBlocks = 256

    /// True when the dump has blocks and a Flipper `ISO15693-3` file has room for them (1 to
    /// ``flipperISO15693MaxBlocks``): the file-format table's `holds`, read by refusal hints without
    /// writing the file.
    var holdsFlipperISO15693Blocks: Bool {
        !blocks.isEmpty && (1...Self.flipperISO15693MaxBlocks).contains(flipperISO15693BlockCount(flipperISO15693SystemInfo))
    }

    /// The system information the file writes: the dump's own, or one knowing only the UID.
    private var flipperISO15693SystemInfo: ISO15693SystemInfo {
        iso15693System ?? ISO15693SystemInfo(uid: cardInfo.uid)
    }

    /// The tag's block count: its system information's, else one past the highest block read. Not
    /// checked here: a count no tag has (below 1, or past the file's 256 blocks) is refused by
    /// ``exportFlipperISO15693NFC()`` and not held by ``holdsFlipperISO15693Blocks``.
    private func flipperISO15693BlockCount(_ system: ISO15693SystemInfo) -> Int {
        if let count = system.blockCount { return count }
        let highest = blocks.map(\.number).max() ?? 0
        return min(highest, Self.flipperISO15693MaxBlocks) + 1
    }

    /// The dump as a Flipper `ISO15693-3` file (lines ending in `\n`).
    ///
    /// `Data Content` has a place for every block and no mark for one not read, so a dump missing a
    /// block of the tag's memory (a tag that rejected EXTENDED READ SINGLE BLOCK: `Blocks Read 256 of
    /// 2048`) is refused with ``NFCError/partialDump(_:)`` naming the first block not read.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for a tag of more than 256 blocks (an ST25DV64K
    ///   has 2048) or without blocks; ``NFCError/malformedDump(_:)`` for blocks of different sizes, of
    ///   more than 32 bytes, a UID that is not 8 bytes, or a block count below 1 (no tag's: the JSON
    ///   import refuses it, a dump built in code may still carry it).
    public func exportFlipperISO15693NFC() throws -> String {
        let system = flipperISO15693SystemInfo
        guard let first = blocks.first else {
            throw NFCError.unsupportedOperation("a Flipper ISO15693-3 file needs the tag's blocks; this dump has none")
        }
        let size = system.blockSize ?? first.data.count
        guard FlipperISO15693Format.blockSizes.contains(size), blocks.allSatisfy({ $0.data.count == size }) else {
            throw NFCError.malformedDump("a Flipper ISO15693-3 file holds blocks of one size, 1–32 bytes (block size \(size))")
        }
        guard cardInfo.uid.count == 8 else {
            throw NFCError.malformedDump("an ISO 15693 UID has 8 bytes (the dump has \(cardInfo.uid.count))")
        }
        let count = flipperISO15693BlockCount(system)
        guard count >= 1 else {
            throw NFCError.malformedDump(
                "block count \(count): an ISO 15693 tag has 1–\(ISO15693SystemInfo.blockCounts.upperBound) blocks (ISO/IEC 15693-3); "
                    + "correct the dump's iso15693.blockCount")
        }
        guard count <= Self.flipperISO15693MaxBlocks else {
            throw NFCError.unsupportedOperation(
                "a Flipper ISO15693-3 file holds at most \(Self.flipperISO15693MaxBlocks) blocks; this \(cardInfo.type.description) has \(count): use json")
        }
        var byNumber: [Int: Block] = [:]
        for block in blocks {
            guard (0..<count).contains(block.number), byNumber[block.number] == nil else {
                throw NFCError.malformedDump("block \(block.number) is outside the \(count) blocks of the tag or appears twice")
            }
            byNumber[block.number] = block
        }
        if let missing = (0..<count).first(where: { byNumber[$0] == nil }) {
            throw NFCError.partialDump(
                "block \(missing) of \(count) was not read; a Flipper ISO15693-3 file holds every block (Data Content) "
                    + "and has no mark for one not read. Use json")
        }
        let ordered = (0..<count).compactMap { byNumber[$0] }
        var lines = [
            "Filetype: \(FlipperNFCFormat.filetype)",
            "Version: \(FlipperNFCFormat.version)",
            "Device type: \(FlipperISO15693Format.deviceType)",
            "UID: \(cardInfo.uid.spacedHexString)",
        ]
        if let dsfid = system.dsfid { lines.append("DSFID: \([dsfid].spacedHexString)") }
        if let afi = system.afi { lines.append("AFI: \([afi].spacedHexString)") }
        if let reference = system.icReference { lines.append("IC Reference: \([reference].spacedHexString)") }
        lines += [
            "Lock DSFID: \(system.dsfidLocked == true)",
            "Lock AFI: \(system.afiLocked == true)",
            "Block Count: \(count)",
            "Block Size: \([UInt8(size)].spacedHexString)",
            "Data Content: \(ordered.flatMap(\.data).spacedHexString)",
            "Security Status: \(ordered.map { UInt8($0.locked ? 1 : 0) }.spacedHexString)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Constants of Flipper's ISO 15693 files.
enum FlipperISO15693Format {
    /// `ISO15693_3_PROTOCOL_NAME`.
    static let deviceType = "ISO15693-3"
}
