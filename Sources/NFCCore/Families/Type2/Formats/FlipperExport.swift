/// Flipper Zero `.nfc` export (file format Version 4, NTAG/Ultralight data format 2).
///
/// Written field by field in the order Flipper's loader reads them (flipperzero-firmware
/// `lib/nfc/protocols/mf_ultralight/mf_ultralight.c` `mf_ultralight_load`, after
/// `iso14443_3a_load`): the loader stops at the first missing required key, so every field is
/// always written, with zeros where the dump does not know the value. See docs/formats.md.
extension TagDump {
    /// The dump as a Flipper Zero `.nfc` file (lines ending in `\n`, as Flipper writes them).
    ///
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps without pages;
    ///   ``NFCError/malformedDump(_:)`` when a page is not exactly 4 bytes, when the memory has
    ///   more pages than a Flipper can hold, or when the UID (the dump's, else pages 0–1's) is not 4, 7
    ///   or 10 bytes (``FlipperNFCFormat/header(deviceType:uid:atqa:sak:)``).
    func exportType2FlipperNFC() throws -> String {
        let image = try Type2PageImage(
            self, unsupportedMessage: "Flipper Zero export is currently available only for page-based Type 2 style dumps.")
        let total = max(type2?.totalPages ?? Type2MemoryMap.forType(cardInfo.type)?.totalPages ?? 0, image.maxPage + 1)
        guard total <= FlipperNFCFormat.maxPages else {
            throw NFCError.malformedDump("\(total) pages; a Flipper .nfc file holds at most \(FlipperNFCFormat.maxPages)")
        }
        let uid = cardInfo.uid.isEmpty ? Type2PageImage.uid(page0: image.pages[0], page1: image.pages[1]) ?? [] : cardInfo.uid
        // Every Ultralight/NTAG answers ATQA 00 44, SAK 00 (MF0ICU1 §7.2, NTAG21x §8.2); dumps imported
        // from files that lack them (upstream JSON) still need the lines for the loader.
        let atqa = cardInfo.atqa?.count == 2 ? cardInfo.atqa ?? [] : [0x00, 0x44]
        let sak = cardInfo.sak ?? 0x00
        let signature = type2?.signature?.count == 32 ? type2?.signature ?? [] : [UInt8](repeating: 0, count: 32)
        let version = cardInfo.version?.count == 8 ? cardInfo.version ?? [] : [UInt8](repeating: 0, count: 8)

        // Upstream wrote ATQA in the Version 2 order (LSB first).
        var lines = try FlipperNFCFormat.header(deviceType: FlipperNFCFormat.deviceType, uid: uid, atqa: atqa, sak: sak) + [
            "Data format version: \(FlipperNFCFormat.dataFormatVersion)",
            "NTAG/Ultralight type: \(FlipperUltralightType.name(for: cardInfo.type, product: cardInfo.product))",
            "Signature: \(signature.spacedHexString)",
            // The tag's own GET_VERSION answer: upstream wrote a hard-coded one per type.
            "Mifare version: \(version.spacedHexString)",
        ]
        for index in 0..<3 {
            let counter = index < (type2?.counters.count ?? 0) ? type2?.counters[index] ?? nil : nil
            let tearing = index < (type2?.tearing.count ?? 0) ? type2?.tearing[index] ?? nil : nil
            lines.append("Counter \(index): \(counter ?? 0)")
            lines.append("Tearing \(index): \((tearing ?? 0).hexString)")
        }
        lines.append("Pages total: \(total)")
        // The pages really read; Flipper treats pages from here on as unread (AUTH0-protected), so a
        // gap ends them: pages after it are written but not claimed as read.
        lines.append("Pages read: \(image.firstMissingPage(below: total) ?? total)")
        for number in 0..<total {
            lines.append("Page \(number): \((image.pages[number] ?? [0, 0, 0, 0]).spacedHexString)")
        }
        lines.append("Failed authentication attempts: 0")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The NTAG/Ultralight part of the Flipper `.nfc` format (flipperzero-firmware mf_ultralight.c).
extension FlipperNFCFormat {
    /// The protocol name of Ultralight/NTAG in version 4 files.
    static let deviceType = "NTAG/Ultralight"
    /// `mf_ultralight_data_format_version`: 2 adds the "NTAG/Ultralight type" and "Pages read" keys.
    static let dataFormatVersion = 2
    /// `MF_ULTRALIGHT_MAX_PAGE_NUM`.
    static let maxPages = 510
}

/// Flipper's names for the Ultralight/NTAG products ("NTAG/Ultralight type" in data format 2,
/// "Device type" in data format 1): each product row's ``Type2Product/flipperName``.
enum FlipperUltralightType {
    /// What a name read from a file means for us.
    struct Row {
        var name: String
        var type: CardType
        /// Finer product (``CardInfo/product``) for products we keep as generic Ultralight (NTAG I2C).
        var product: Type2Product?
    }

    /// The name to write for `type` (and `product`, the exact row when identification found one).
    static func name(for type: CardType, product: Product?) -> String {
        // The stored row names itself (a base row's name is its card type's).
        if let row = product?.type2, row.cardType == type {
            return row.flipperName
        }
        return Type2Product.forType(type)?.flipperName ?? Type2Product.ultralight.flipperName
    }

    /// The row for a name read from a file: a base row first (so "Mifare Ultralight 11" is an MF0UL11,
    /// as Flipper means it), else a product row whose exact name is kept.
    static func row(named name: String) -> Row? {
        if let base = Type2Product.baseRows.first(where: { $0.flipperName == name }) {
            return Row(name: name, type: base.cardType)
        }
        return Type2Product.productRows.first { $0.flipperName == name }.map {
            Row(name: name, type: $0.cardType, product: $0)
        }
    }

    /// The product row of `type` a file names `name` (case and spaces aside, as files spell them): a
    /// product row, or the base row GET_VERSION names too ("NTAG215").
    static func productRow(named name: String, type: CardType) -> Type2Product? {
        let wanted = normalized(name)
        return (Type2Product.productRows + Type2Product.baseRows).first {
            $0.cardType == type && normalized($0.name) == wanted
        }
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().filter { !$0.isWhitespace }
    }
}
