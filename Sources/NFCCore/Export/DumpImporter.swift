import Foundation

/// The dump file formats NFCBridge reads.
public enum DumpFormat: String, Sendable, CaseIterable {
    /// NFCBridge / CoreExtendedNFC structured JSON (``TagDump/exportJSON(prettyPrinted:)``).
    case json
    /// Flipper Zero `.nfc` (NTAG/Ultralight, MIFARE Classic).
    case flipper
    /// Proxmark3 MFU binary (new, old or plain layout); a Classic `hf mf` dump (raw blocks).
    case proxmark3 = "pm3"
    /// libnfc MFD (Type 2 page image, MIFARE Classic block image).
    case mfd
}

/// Reads a dump file in any supported format, telling the format from the content.
public enum DumpImporter {
    /// The format of `bytes`: JSON when it starts with `{`, Flipper when it starts with `Filetype:`,
    /// MFD for a MIFARE Classic MFD size (320, 1024, 2048, 4096 bytes: no MFU file has these sizes),
    /// Proxmark3 when a 56- or 48-byte MFU header precedes valid UID check bytes, MFD for a page image
    /// of a Type 2 MFD size, Proxmark3 (plain) for other page images with valid UID check bytes.
    /// Nil when nothing fits.
    public static func detectFormat(_ bytes: [UInt8]) -> DumpFormat? {
        // Skip a UTF-8 byte-order mark and leading white space of text formats.
        let text = bytes.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if text.first == UInt8(ascii: "{") { return .json }
        if text.starts(with: Array("Filetype:".utf8)) { return .flipper }
        if ClassicFileType.mfdSizes.contains(bytes.count) { return .mfd }
        switch ProxmarkMFULayout.detect(bytes) {
        case .new, .old: return .proxmark3
        case .plain:
            if mfdSizes.contains(bytes.count) { return .mfd }
            return Type2PageImage.hasValidBCC(bytes, at: 0) ? .proxmark3 : nil
        case nil: return nil
        }
    }

    /// Reads `bytes` as `format`, or as the detected format when `format` is nil.
    /// - Throws: ``NFCError/malformedDump(_:)`` when the format is not recognised or the file is not
    ///   well formed; ``NFCError/unsupportedOperation(_:)`` for files of a recognised format that hold
    ///   something other than a Type 2 or MIFARE Classic dump (e.g. a Flipper DESFire file).
    ///   MIFARE Classic files (Flipper `Device type: Mifare Classic`, MFD and Proxmark3 `hf mf` dumps
    ///   of a Classic size) go to the Classic importers.
    public static func importDump(_ bytes: [UInt8], format: DumpFormat? = nil) throws -> TagDump {
        guard let format = format ?? detectFormat(bytes) else {
            throw NFCError.malformedDump("not a JSON, Flipper .nfc, Proxmark3 MFU or libnfc MFD dump (\(bytes.count) bytes)")
        }
        switch format {
        case .json: return try TagDump.importJSON(bytes)
        case .flipper:
            guard let text = String(bytes: bytes, encoding: .utf8) else { throw NFCError.malformedDump("not UTF-8 text") }
            if FlipperKeyValues(text)["Device type"] == FlipperClassicFormat.deviceType {
                return try TagDump.importFlipperClassicNFC(text)
            }
            return try TagDump.importFlipperNFC(text)
        case .proxmark3:
            // Proxmark3 saves `hf mf` dumps as the raw block image, the same bytes as an MFD.
            if ClassicFileType.mfdSizes.contains(bytes.count) {
                return try TagDump.importClassicBlocks(bytes, source: "Proxmark3 MFC")
            }
            return try TagDump.importProxmark3MFU(bytes)
        case .mfd:
            if ClassicFileType.mfdSizes.contains(bytes.count) { return try TagDump.importClassicMFD(bytes) }
            return try TagDump.importLibNFCMFD(bytes)
        }
    }

    /// Every size of a Type 2 MFD file we read: each product's readable and whole memory
    /// (``Type2MemoryMap``, × 4 bytes), and the amiibo image sizes (``AmiiboImage``).
    public static let mfdSizes: Set<Int> = {
        var sizes = Set(AmiiboImage.fileSizes)
        for type in CardType.knownCases {
            guard let map = Type2MemoryMap.forType(type) else { continue }
            sizes.insert(map.totalPages * 4)
            sizes.insert(map.readablePages * 4)
        }
        return sizes
    }()

    /// The Type 2 type of a page image of `pageCount` pages, for formats that do not name it:
    /// the product whose memory map has that many pages (all, or all readable). Where two products
    /// share a size (MF0UL11/NTAG210, MF0UL21/NTAG212), the GET_VERSION product type (byte 2: 03h
    /// Ultralight, 04h NTAG) decides, and Ultralight EV1 without one (as libnfc and upstream do).
    /// Other sizes give generic Ultralight.
    static func type2Type(pageCount: Int, version: [UInt8]?) -> CardType {
        if pageCount == AmiiboImage.pagesWithoutPassword { return .ntag215 }
        let candidates = CardType.knownCases.filter { type in
            guard let map = Type2MemoryMap.forType(type) else { return false }
            return map.totalPages == pageCount || map.readablePages == pageCount
        }
        let isNTAG = version.map { $0.count == 8 && $0[2] == 0x04 } ?? false
        return candidates.first { ($0.family == .ntag) == isNTAG } ?? candidates.first ?? .mifareUltralight
    }

    /// Flipper names NTAG210/212 "Mifare Ultralight 11/21" (it types by storage size only); the
    /// GET_VERSION product type (04h = NTAG) turns them back (the inverse of
    /// ``FlipperUltralightType/aliases``).
    static func refineAlias(_ type: CardType, version: [UInt8]?) -> CardType {
        guard let version, version.count == 8, version[2] == 0x04 else { return type }
        return FlipperUltralightType.aliases.first { FlipperUltralightType.row(named: $0.value)?.type == type }?.key ?? type
    }

    /// Card type and exact product of an imported Type 2 dump, from the best evidence the file has:
    /// a GET_VERSION answer found byte for byte in ``GetVersionTable`` (as identification does); else
    /// the type the file names (Flipper's type line); else the table's fallback rules for a GET_VERSION
    /// answer; else the page count (``type2Type(pageCount:version:)``).
    static func type2Identity(version: [UInt8]?, named row: FlipperUltralightType.Row?, pageCount: Int)
        -> (type: CardType, product: String?)
    {
        let match = version.flatMap(GetVersionTable.lookup)
        if let match, match.isExact { return (match.product.cardType, match.product.name) }
        if let row { return (refineAlias(row.type, version: version), row.product) }
        if let match, match.product.cardType != .mifareUltralight { return (match.product.cardType, nil) }
        return (type2Type(pageCount: pageCount, version: version), nil)
    }
}

/// Amiibo (NTAG215) image files as amiibo tools write them: 540 bytes (all 135 pages, = the MFD),
/// 532 bytes (pages 0–132, without PWD/PACK) and 572 bytes (540 + the 32-byte originality signature,
/// as some tools append it).
enum AmiiboImage {
    static let fileSizes = [532, 540, 572]
    /// Pages in a 532-byte image.
    static let pagesWithoutPassword = 133

    /// Bytes after the pages of a file of this size (the 572-byte images' signature).
    static func trailingSignatureLength(forFileSize size: Int) -> Int? {
        size == 572 ? 32 : nil
    }
}

extension TagDump {
    /// A Type 2 dump from a plain page image (Proxmark3 MFU payload, MFD).
    static func importType2Pages(_ payload: [UInt8], version: [UInt8]?, source: String) throws -> TagDump {
        guard !payload.isEmpty, payload.count % 4 == 0 else {
            throw NFCError.malformedDump("\(payload.count) bytes of page data is not a whole number of 4-byte pages")
        }
        let pages = stride(from: 0, to: payload.count, by: 4).map { Page(number: $0 / 4, data: Array(payload[$0..<$0 + 4])) }
        let (type, product) = DumpImporter.type2Identity(version: version, named: nil, pageCount: pages.count)
        let uid = Type2PageImage.uid(in: pages) ?? []
        let total = max(Type2MemoryMap.forType(type)?.totalPages ?? 0, pages.count)
        return TagDump(
            // Every Ultralight/NTAG answers ATQA 00 44 (MSB first) and SAK 00.
            cardInfo: CardInfo(type: type, uid: uid, atqa: [0x00, 0x44], sak: 0x00, product: product, version: version),
            pages: pages,
            ndefMessage: Type2TLV.extractMessage(from: pages),
            facts: [Fact(key: "Imported From", value: source), Fact(key: "Pages Total", value: "\(pages.count)")],
            capabilities: [.readable],
            type2: Type2Extras(totalPages: total)
        )
    }
}
