/// Card type and product of a Type 2 dump read from a file that does not name them all (libnfc MFD,
/// Proxmark3 MFU, Flipper `.nfc`), and the Type 2 image sizes the importers accept.
enum Type2FileIdentity {
    /// Every size of a Type 2 MFD file we read: each product's readable and whole memory
    /// (``Type2MemoryMap``, × 4 bytes), and the amiibo image sizes (``AmiiboImage``).
    static let mfdSizes: Set<Int> = {
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
    /// ``Type2Product/flipperName``).
    static func refineAlias(_ type: CardType, version: [UInt8]?) -> CardType {
        guard let version, version.count == 8, version[2] == 0x04, let name = Type2Product.forType(type)?.flipperName
        else { return type }
        return Type2Product.baseRows.first { $0.flipperName == name && $0.cardType.family == .ntag }?.cardType ?? type
    }

    /// A page image whose capability container (page 3: E1h, version, data-area size ÷ 8, access; NFC
    /// Forum T2T §6.1) names a data area larger than `type`'s user memory: the data area in bytes, the
    /// products whose factory CC names it (``Type2Product/factoryCapabilityContainer``: NTAG215's
    /// 3Eh = 496 bytes, not its 504 bytes of user memory), and their card type when they share one;
    /// nil when the CC fits or is no NDEF CC.
    static func largerProductCut(pages: [Page], type: CardType) -> (dataArea: Int, products: String, type: CardType?)? {
        guard pages.count > 3, pages[3].data.count == 4, pages[3].data[0] == 0xE1,
              let map = Type2MemoryMap.forType(type)
        else { return nil }
        let dataArea = Int(pages[3].data[2]) * 8
        guard dataArea > map.userBytes else { return nil }
        let rows = Type2Product.baseRows.filter { $0.factoryCapabilityContainer.dataAreaSize == dataArea }
        let types = Set(rows.map(\.cardType))
        return (dataArea, rows.isEmpty ? "no product NFCBridge knows" : rows.map(\.name).joined(separator: ", "),
                types.count == 1 ? types.first : nil)
    }

    /// Card type and exact product of an imported Type 2 dump, from the best evidence the file has:
    /// a GET_VERSION answer found byte for byte in ``GetVersionTable`` (as identification does); else
    /// the type the file names (Flipper's type line); else the table's fallback rules for a GET_VERSION
    /// answer; else the page count (``type2Type(pageCount:version:)``).
    static func type2Identity(version: [UInt8]?, named row: FlipperUltralightType.Row?, pageCount: Int)
        -> (type: CardType, product: Product?)
    {
        let match = version.flatMap(GetVersionTable.lookup)
        if let match, match.isExact { return (match.product.cardType, Product(match.product)) }
        if let row { return (refineAlias(row.type, version: version), row.product.map { Product($0) }) }
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
        var (type, product) = Type2FileIdentity.type2Identity(version: version, named: nil, pageCount: pages.count)
        // An image without GET_VERSION is typed by its size, and a cut image has a smaller product's
        // size: its CC (page 3) naming more data than that product holds shows it is the start of a
        // larger tag (issue 23: a cut NTAG213, or libnfc's 64-byte file of an Ultralight C or NTAG203,
        // is no whole MIFARE Ultralight; an NTAG215 cut at page 45 is no NTAG213). When the products
        // with that factory CC share a type, the image is a cut dump of that type; else it says so.
        var larger = version == nil ? Type2FileIdentity.largerProductCut(pages: pages, type: type) : nil
        if let cutOf = larger?.type {
            (type, product, larger) = (cutOf, nil, nil)
        }
        let uid = Type2PageImage.uid(in: pages) ?? []
        let map = Type2MemoryMap.forType(type)
        let total = max(map?.totalPages ?? 0, pages.count)
        // Fewer pages than the product lets anyone read (a `--partial` export, a reader stopped at
        // AUTH0): the image is cut, and says so as a dump of the card would (Ultralight C key pages
        // are never readable, so 44 of 48 is whole; an amiibo image leaves out PWD and PACK, which
        // read as zeros, by design).
        let readable = pages.count == AmiiboImage.pagesWithoutPassword ? pages.count : map?.readablePages ?? pages.count
        let isCut = pages.count < readable || larger != nil
        var facts = [Fact(key: "Imported From", value: source)]
        if let larger {
            facts.append(Fact(key: "Pages Read", value: "\(pages.count), the start of a larger tag: the capability container gives "
                                + "a \(larger.dataArea)-byte data area (\(larger.products))"))
        } else {
            facts.append(Fact(key: "Pages Total", value: "\(isCut ? total : pages.count)"))
            if isCut { facts.append(Fact(key: "Pages Read", value: "\(pages.count) of \(total)")) }
        }
        return TagDump(
            // Every Ultralight/NTAG answers ATQA 00 44 (MSB first) and SAK 00.
            cardInfo: CardInfo(type: type, uid: uid, atqa: [0x00, 0x44], sak: 0x00, product: product, version: version),
            pages: pages,
            ndefMessage: Type2Dump.ndefMessage(inImage: pages),
            facts: facts,
            capabilities: isCut ? [.readable, .partiallyReadable] : [.readable],
            family: .type2(Type2Extras(totalPages: total))
        )
    }
}
