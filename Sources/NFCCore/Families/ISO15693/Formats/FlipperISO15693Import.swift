/// Flipper Zero `.nfc` import for ISO 15693 tags: the keys Flipper's loader reads
/// (flipperzero-firmware `lib/nfc/protocols/iso15693_3/iso15693_3.c`, `iso15693_3_load`; for
/// `Device type: SLIX` also `lib/nfc/protocols/slix/slix.c`, `slix_load`), checked against what the
/// export beside it (FlipperISO15693Export.swift) writes:
///
///     Device type: ISO15693-3 | SLIX        (Version 4; Versions 2–3: ISO15693)
///     UID: E0 04 01 50 12 34 56 78          required: 8 bytes, E0 first (ISO/IEC 15693-3 "Unique identifier");
///                                           a SLIX file's an NXP one (E0 04)
///     DSFID: 26 / AFI: 00 / IC Reference: 01   optional, one hex byte each
///     Lock DSFID: false / Lock AFI: false   optional, both or neither
///     Block Count: 28                       required, decimal 1–256
///     Block Size: 04                        required, one hex byte 01–20
///     Data Content: …                       required, Block Count × Block Size bytes
///     Security Status: 00 01 …              optional: one byte per block (00 / 01); without the
///                                           Lock keys Flipper's legacy layout, a lock byte first
///
/// Flipper's loader is lenient where this one is strict (it skips a memory without `Block Count`, does
/// not bound the count, takes a UID of any length and overwrites its first byte with E0): a file this
/// import refuses is one a tag could not have given.
extension TagDump {
    /// Reads a Flipper Zero `.nfc` file of an ISO 15693 tag (`Device type: ISO15693-3` or `SLIX`; the
    /// legacy `ISO15693` of file Versions 2–3).
    ///
    /// The dump is what NFCBridge's own dump of the tag would be (``ISO15693Dump``): every block with
    /// its lock from `Security Status`, the system information the file has (DSFID, AFI, IC reference,
    /// block count and size; `Lock DSFID` / `Lock AFI` only when `true`, as a `false` does not tell
    /// "unlocked" from "not known"), the type and product from the UID and IC reference
    /// (``ISO15693Product/match(uid:info:)``), the NDEF message of the Type 5 area, and the facts of a
    /// dump with `Imported From` first. A SLIX file's own keys (signature, privacy mode, protection
    /// pointer, EAS/PPL locks) have no place in a dump: they are checked and kept as facts named
    /// `SLIX <key>`, for people only; its passwords are checked and dropped (`SLIX Passwords` names them). What the file cannot say stays absent: refinement probes,
    /// and locks when there is no `Security Status` (blocks then not locked).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for other device types and file versions;
    ///   ``NFCError/malformedDump(_:)`` naming the key for a required key missing, a value that is not
    ///   Flipper's spaced hex (or `true`/`false`, a decimal count), a UID that is not 8 bytes starting
    ///   E0, a count or size out of range, `Data Content` that is not Block Count × Block Size bytes, a
    ///   `Security Status` of the wrong length or with a byte other than 00 / 01.
    public static func importFlipperISO15693NFC(_ text: String) throws -> TagDump {
        let file = FlipperKeyValues(text)
        let fileVersion = try file.fileVersion()
        guard let deviceType = file["Device type"], FlipperISO15693Format.reads(deviceType, fileVersion: fileVersion) else {
            throw NFCError.unsupportedOperation(
                "Unsupported Flipper NFC file format: device type '\((file["Device type"] ?? "(none)").prefix(40))' "
                    + "in file Version \(fileVersion) is not an ISO 15693 file")
        }
        let uid = try file.spacedHex("UID")
        guard uid.count == 8, uid.first == 0xE0 else {
            throw NFCError.malformedDump(
                "UID '\(uid.spacedHexString.prefix(60))' is not an ISO 15693 UID (8 bytes, the first E0)")
        }
        // `slix_get_type`: a SLIX file whose UID is not NXP's (manufacturer 04h) does not load.
        if deviceType == FlipperISO15693Format.slixDeviceType, uid[1] != ICManufacturer.nxp {
            throw NFCError.malformedDump(
                "UID '\(uid.spacedHexString)' is not an NXP UID (E0 04 …), which a SLIX file's is")
        }
        let dsfid = try file.optionalByte("DSFID")
        let afi = try file.optionalByte("AFI")
        let icReference = try file.optionalByte("IC Reference")
        let lockDSFID = try file.optionalBool("Lock DSFID")
        let lockAFI = try file.optionalBool("Lock AFI")
        if (lockDSFID == nil) != (lockAFI == nil) {
            throw NFCError.malformedDump(
                "\(lockDSFID == nil ? "Lock DSFID" : "Lock AFI") is missing: Flipper reads the lock keys as a pair "
                    + "(without both it reads Security Status in its legacy layout)")
        }

        guard let countText = file["Block Count"] else { throw NFCError.malformedDump("missing Block Count") }
        guard countText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), countText.count <= 3,
            let count = Int(countText), (1...TagDump.flipperISO15693MaxBlocks).contains(count)
        else {
            throw NFCError.malformedDump(
                "Block Count '\(countText.prefix(20))' is not a decimal number of blocks, 1–\(TagDump.flipperISO15693MaxBlocks)")
        }
        let sizeBytes = try file.spacedHex("Block Size")
        guard sizeBytes.count == 1, let sizeByte = sizeBytes.first, FlipperISO15693Format.blockSizes.contains(Int(sizeByte))
        else {
            throw NFCError.malformedDump(
                "Block Size '\(sizeBytes.spacedHexString.prefix(20))' is not one hex byte 01–20 (1–32 bytes a block)")
        }
        let size = Int(sizeByte)
        let data = try file.spacedHex("Data Content")
        guard data.count == count * size else {
            throw NFCError.malformedDump(
                "Data Content has \(data.count) bytes; Block Count × Block Size is \(count) × \(size) = \(count * size)")
        }

        let (locks, legacyLockByte) = try securityStatus(file, blocks: count, legacy: lockDSFID == nil)
        // Only `true` is knowledge: a `false` is also what an export writes when the lock is not known.
        let dsfidLocked = (lockDSFID ?? legacyLockByte.map { $0 & FlipperISO15693Format.legacyDSFIDLock != 0 }) == true
        let afiLocked = (lockAFI ?? legacyLockByte.map { $0 & FlipperISO15693Format.legacyAFILock != 0 }) == true
        let system = ISO15693SystemInfo(uid: uid, dsfid: dsfid, afi: afi, blockCount: count, blockSize: size,
                                        icReference: icReference, dsfidLocked: dsfidLocked ? true : nil,
                                        afiLocked: afiLocked ? true : nil)
        let blocks = (0..<count).map { number in
            Block(number: number, data: Array(data[number * size..<(number + 1) * size]), locked: locks[number] == 1)
        }
        let product = ISO15693Product.match(uid: uid, info: system)
        let info = CardInfo(type: product?.type ?? .iso15693_generic, uid: uid, product: product.map { Product($0) })
        var dump = ISO15693Dump.makeDump(info: info, system: system, blocks: blocks, total: count)
        dump.facts.insert(Fact(key: "Imported From", value: "Flipper Zero .nfc"), at: 0)
        if deviceType == FlipperISO15693Format.slixDeviceType { dump.facts += try slixFacts(file) }
        return dump
    }

    /// `Security Status`: one byte per block (00 / 01), or with `legacy` (no Lock keys) Flipper's older
    /// layout, the DSFID/AFI lock byte (bits 0 and 1) first. Without the key every block is unlocked.
    private static func securityStatus(_ file: FlipperKeyValues, blocks count: Int, legacy: Bool) throws
        -> (locks: [UInt8], legacyLockByte: UInt8?)
    {
        guard file["Security Status"] != nil else { return ([UInt8](repeating: 0, count: count), nil) }
        var status = try file.spacedHex("Security Status")
        let expected = legacy ? count + 1 : count
        guard status.count == expected else {
            throw NFCError.malformedDump(
                "Security Status has \(status.count) bytes; "
                    + (legacy ? "without Lock DSFID / Lock AFI it is a lock byte, then one byte per block: \(expected)"
                              : "one byte per block: \(expected)"))
        }
        var lockByte: UInt8?
        if legacy {
            let first = status.removeFirst()
            guard first & ~(FlipperISO15693Format.legacyDSFIDLock | FlipperISO15693Format.legacyAFILock) == 0 else {
                throw NFCError.malformedDump(
                    "Security Status lock byte is \(first.hexString); only bits 0 (DSFID) and 1 (AFI) are lock bits")
            }
            lockByte = first
        }
        if let bad = status.firstIndex(where: { $0 > 1 }) {
            throw NFCError.malformedDump(
                "Security Status of block \(bad) is \(status[bad].hexString); a block is 00 (not locked) or 01 (locked)")
        }
        return (status, lockByte)
    }

    /// The SLIX keys of a `Device type: SLIX` file (``FlipperISO15693Format/slixKeys``), each checked and
    /// kept as a fact `SLIX <key>` in the file's form — but the passwords: they are checked and left out
    /// (passwords never enter a dump, its exports or events), one fact `SLIX Passwords` naming which the
    /// file held.
    private static func slixFacts(_ file: FlipperKeyValues) throws -> [Fact] {
        var passwords: [String] = []
        var facts = try FlipperISO15693Format.slixKeys.compactMap { key, form -> Fact? in
            guard let text = file[key] else { return nil }
            switch form {
            case .hex(let count):
                let bytes = try file.spacedHex(key)
                guard bytes.count == count else {
                    throw NFCError.malformedDump("\(key) has \(bytes.count) bytes; a SLIX \(key) has \(count)")
                }
                if key.hasPrefix(FlipperISO15693Format.passwordKeyPrefix) {
                    passwords.append(String(key.dropFirst(FlipperISO15693Format.passwordKeyPrefix.count)))
                    return nil
                }
                return Fact(key: "SLIX \(key)", value: bytes.spacedHexString, monospaced: true)
            case .bool:
                return Fact(key: "SLIX \(key)", value: "\(try file.optionalBool(key) ?? false)")
            case .text:
                guard text.count <= 40, text.allSatisfy({ $0.isLetter || $0 == " " }) else {
                    throw NFCError.malformedDump("\(key) '\(text.prefix(40))' is not a SLIX capabilities name")
                }
                return Fact(key: "SLIX \(key)", value: text)
            }
        }
        if !passwords.isEmpty {
            facts.insert(Fact(key: "SLIX Passwords", value: passwords.joined(separator: ", ") + " in the file, not kept"),
                         at: min(1, facts.count))
        }
        return facts
    }
}

extension FlipperISO15693Format {
    /// The legacy device type (file Versions 2–3), which `iso15693_3_verify` maps to ISO15693-3.
    static let legacyDeviceType = "ISO15693"
    /// `SLIX_PROTOCOL_NAME`: NXP ICODE SLIX, SLIX-S, SLIX-L, SLIX2 files (Version 4 only: `slix_verify`
    /// accepts no legacy name). The ISO 15693 part is the same keys.
    static let slixDeviceType = "SLIX"
    /// `Block Size`: "valid range = 01...20 (hex)", the 1–32 bytes of ISO/IEC 15693-3
    /// (``ISO15693SystemInfo/blockSizes``).
    static let blockSizes = ISO15693SystemInfo.blockSizes
    /// The legacy lock byte's bits (`ISO15693_3_LOCK_DSFID_LEGACY`, `…_AFI_LEGACY`).
    static let legacyDSFIDLock: UInt8 = 0x01, legacyAFILock: UInt8 = 0x02

    /// Whether a file of `fileVersion` with this `Device type` is an ISO 15693 file.
    static func reads(_ deviceType: String, fileVersion: Int) -> Bool {
        fileVersion >= FlipperNFCFormat.version
            ? deviceType == Self.deviceType || deviceType == slixDeviceType
            : deviceType == legacyDeviceType
    }

    /// The form of a SLIX key's value.
    enum SLIXForm { case hex(Int), bool, text }

    /// The keys `slix_save` writes after the ISO 15693 part, with their forms (`slix.c`: passwords are
    /// 4 bytes, the signature 32 — "the card's secp128r1 elliptic curve signature" —, the protection
    /// pointer and condition one byte each; `Capabilities` is a name, `Default` or `Accept all passwords`).
    /// The SLIX keys holding a password (`Password Read`, … `Password EAS`): never kept.
    static let passwordKeyPrefix = "Password "

    static let slixKeys: [(String, SLIXForm)] = [
        ("Capabilities", .text),
        ("Password Read", .hex(4)), ("Password Write", .hex(4)), ("Password Privacy", .hex(4)),
        ("Password Destroy", .hex(4)), ("Password EAS", .hex(4)),
        ("Signature", .hex(32)),
        ("Privacy Mode", .bool),
        ("Protection Pointer", .hex(1)), ("Protection Condition", .hex(1)),
        ("Lock EAS", .bool), ("Lock PPL", .bool),
    ]
}

extension FlipperKeyValues {
    /// A required key's value as Flipper writes hex (`flipper_format_write_hex`): two hex digits a byte,
    /// bytes separated by one space. Stricter than ``bytes(_:count:)``, which takes any separators.
    fileprivate func spacedHex(_ key: String) throws -> [UInt8] {
        guard let text = self[key] else { throw NFCError.malformedDump("missing \(key)") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((text.utf8.count + 1) / 3)
        // Each token is exactly two digits, read by the project's hex parser (``Array/init(hex:)``).
        for token in text.split(separator: " ", omittingEmptySubsequences: false) {
            guard token.utf8.count == 2, let parsed = [UInt8](hex: String(token)), parsed.count == 1 else {
                throw NFCError.malformedDump("\(key) '\(text.prefix(40))' is not hex bytes separated by spaces")
            }
            bytes += parsed
        }
        return bytes
    }

    /// An optional key of one hex byte.
    fileprivate func optionalByte(_ key: String) throws -> UInt8? {
        guard self[key] != nil else { return nil }
        let bytes = try spacedHex(key)
        guard bytes.count == 1, let byte = bytes.first else { throw NFCError.malformedDump("\(key) has \(bytes.count) bytes, not 1") }
        return byte
    }

    /// An optional key of `true` / `false` (`flipper_format_write_bool`).
    fileprivate func optionalBool(_ key: String) throws -> Bool? {
        guard let text = self[key] else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default: throw NFCError.malformedDump("\(key) '\(text.prefix(20))' is not true or false")
        }
    }
}
