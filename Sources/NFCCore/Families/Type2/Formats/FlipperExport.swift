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
    ///   ``NFCError/malformedDump(_:)`` when a page is not exactly 4 bytes, or when the memory has
    ///   more pages than a Flipper can hold.
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
        var lines = FlipperNFCFormat.header(deviceType: FlipperNFCFormat.deviceType, uid: uid, atqa: atqa, sak: sak) + [
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
        // The pages really read; Flipper treats pages from here on as unread (AUTH0-protected).
        lines.append("Pages read: \(pages.count)")
        for number in 0..<total {
            lines.append("Page \(number): \((image.pages[number] ?? [0, 0, 0, 0]).spacedHexString)")
        }
        lines.append("Failed authentication attempts: 0")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Flipper's names for the Ultralight/NTAG products ("NTAG/Ultralight type" in data format 2,
/// "Device type" in data format 1) — `mf_ultralight_features[].device_name` in mf_ultralight.c.
enum FlipperUltralightType {
    /// One name and what it means for us.
    struct Row {
        var name: String
        var type: CardType
        /// Finer product name (``CardInfo/product``) for products we keep as generic Ultralight.
        var product: String?
    }

    /// Every name a Flipper writes. NTAG I2C stays generic Ultralight in our model (the spec) with the
    /// product name kept. "Mifare Ultralight C" exists in current firmware only.
    static let rows: [Row] = [
        Row(name: "Mifare Ultralight", type: .mifareUltralight),
        Row(name: "Mifare Ultralight C", type: .mifareUltralightC),
        Row(name: "Mifare Ultralight 11", type: .mifareUltralightEV1_MF0UL11),
        Row(name: "Mifare Ultralight 21", type: .mifareUltralightEV1_MF0UL21),
        Row(name: "NTAG203", type: .ntag203),
        Row(name: "NTAG213", type: .ntag213),
        Row(name: "NTAG215", type: .ntag215),
        Row(name: "NTAG216", type: .ntag216),
        Row(name: "NTAG I2C 1K", type: .mifareUltralight, product: Type2Product.ntagI2C1K.name),
        Row(name: "NTAG I2C 2K", type: .mifareUltralight, product: Type2Product.ntagI2C2K.name),
        Row(name: "NTAG I2C Plus 1K", type: .mifareUltralight, product: Type2Product.ntagI2CPlus1K.name),
        Row(name: "NTAG I2C Plus 2K", type: .mifareUltralight, product: Type2Product.ntagI2CPlus2K.name),
    ]

    /// Flipper has no NTAG210/212 type: it types tags by the GET_VERSION storage byte alone
    /// (`mf_ultralight_get_type_by_version`), so it saves an NTAG210 (0Bh) as "Mifare Ultralight 11" and
    /// an NTAG212 (0Eh) as "Mifare Ultralight 21" — the same page count, config page and commands
    /// (NTAG210/212 §8.5 vs MF0ULX1 §8.5). We write the same, and the real GET_VERSION beside it lets
    /// our importer tell them apart again.
    static let aliases: [CardType: String] = [
        .ntag210: "Mifare Ultralight 11",
        .ntag212: "Mifare Ultralight 21",
    ]

    /// The name to write for `type` (and `product`, for the NTAG I2C family).
    static func name(for type: CardType, product: String?) -> String {
        if let alias = aliases[type] { return alias }
        if type == .mifareUltralight, let product = product.map(normalized),
            let row = rows.first(where: { $0.product.map(normalized) == product })
        {
            return row.name
        }
        return rows.first { $0.type == type && $0.product == nil }?.name ?? "Mifare Ultralight"
    }

    /// The row for a name read from a file.
    static func row(named name: String) -> Row? {
        rows.first { $0.name == name }
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().filter { !$0.isWhitespace }
    }
}
