/// The ATR a PC/SC reader builds for a contactless card (PC/SC Specifications Part 3 v2.02 §3.1.3.2.3,
/// "ATR for contactless storage cards" and "ATR for contactless ISO 14443-4 cards"), and the tables that turn
/// it into a ``Target`` for NFCCore's classifier and refinement.
///
/// * Storage cards: `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK` — historical bytes
///   `80` (category), `4F 0C` (application identifier, 12 bytes), RID `A0 00 00 03 06` (PC/SC Workgroup),
///   the standard byte `SS` (``standards``) and the card name `NN NN` (``cardNames``), four RFU bytes.
/// * ISO 14443-4 cards: `3B 8n 80 01 <historical bytes> TCK` — type A cards give the historical bytes of
///   their ATS, type B cards eight bytes of ATQB application data, protocol info and MBLI.
///
/// `TCK` is the XOR of every byte after `3B` (ISO/IEC 7816-3 §8.2.5): a wrong one rejects the ATR.
public struct ContactlessATR: Sendable, Hashable {
    /// What the ATR says about the card.
    public enum Kind: Sendable, Hashable {
        /// A storage card with its standard byte and card name (PC/SC part 3 supplemental document).
        case storage(standard: UInt8, cardName: UInt16)
        /// An ISO/IEC 14443-4 card with the historical bytes the reader copied.
        case isoDEP(historicalBytes: [UInt8])
    }

    /// The ATR as the reader gave it.
    public let bytes: [UInt8]
    /// The card the ATR describes.
    public let kind: Kind

    /// The historical bytes of a storage card's ATR up to the standard byte (PC/SC part 3 §3.1.3.2.3.2):
    /// category `80`, tag `4F` length `0C`, RID `A0 00 00 03 06`.
    public static let storagePrefix: [UInt8] = [0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]

    /// Parses `bytes`; nil when it is not a PC/SC part 3 contactless ATR (`3B 8n 80 01 …` with a good TCK).
    public init?(_ bytes: [UInt8]) {
        // TS 3B (direct convention), T0 8n (TD1 follows, n historical bytes), TD1 80 (TD2 follows, T=0),
        // TD2 01 (T=1, nothing follows).
        guard bytes.count >= 5, bytes[0] == 0x3B, bytes[1] & 0xF0 == 0x80, bytes[2] == 0x80, bytes[3] == 0x01 else {
            return nil
        }
        let count = Int(bytes[1] & 0x0F)
        guard bytes.count == 4 + count + 1, bytes.dropFirst().reduce(0, ^) == 0 else { return nil }
        let historical = Array(bytes[4..<(4 + count)])
        self.bytes = bytes
        if historical.count == 15, historical.starts(with: Self.storagePrefix) {
            kind = .storage(standard: historical[8], cardName: UInt16(historical[9]) << 8 | UInt16(historical[10]))
        } else {
            kind = .isoDEP(historicalBytes: historical)
        }
    }

    /// The row of ``cardNames`` for a storage card; nil for ISO-DEP cards and unknown names.
    public var cardName: CardName? {
        guard case let .storage(_, code) = kind else { return nil }
        return Self.cardNames.first { $0.code == code }
    }

    /// The radio technology: the standard byte for storage cards (``standards``), ISO 14443-A for
    /// ISO-DEP cards; nil for a standard NFCCore has no modulation for.
    public var modulation: Modulation? {
        switch kind {
        case let .storage(standard, _): Technology.forATRStandard(standard)?.modulation
        case .isoDEP: .iso14443a
        }
    }

    /// One value of the standard byte `SS` (PC/SC part 3 supplemental document, "Standard" table).
    public struct Standard: Sendable, Hashable {
        public var code: UInt8
        public var name: String
        /// The modulation NFCCore knows it as (the technology table's ``Technology/atrStandards``);
        /// nil for technologies it has none for.
        public var modulation: Modulation? { Technology.forATRStandard(code)?.modulation }
    }

    /// The standard byte table (PC/SC part 3 supplemental document, "Standard": ISO/IEC 14443 A/B parts
    /// 1–3, ISO/IEC 15693 parts 1–4, FeliCa 11h): the names, for messages. Which modulation a code
    /// means is the technology table's (``Technology/atrStandards``).
    public static let standards: [Standard] = [
        Standard(code: 0x00, name: "no information given"),
        Standard(code: 0x01, name: "ISO 14443 A, part 1"),
        Standard(code: 0x02, name: "ISO 14443 A, part 2"),
        Standard(code: 0x03, name: "ISO 14443 A, part 3"),
        Standard(code: 0x05, name: "ISO 14443 B, part 1"),
        Standard(code: 0x06, name: "ISO 14443 B, part 2"),
        Standard(code: 0x07, name: "ISO 14443 B, part 3"),
        Standard(code: 0x09, name: "ISO 15693, part 1"),
        Standard(code: 0x0A, name: "ISO 15693, part 2"),
        Standard(code: 0x0B, name: "ISO 15693, part 3"),
        Standard(code: 0x0C, name: "ISO 15693, part 4"),
        Standard(code: 0x11, name: "FeliCa"),
    ]

    /// One card name `NN NN` of a storage card's ATR.
    public struct CardName: Sendable, Hashable {
        public var code: UInt16
        public var name: String
        /// The ATQA (MSB first) and SAK such a card answers anticollision with (NXP AN10833 §2 table 4 /
        /// NXP AN10834), for readers that do not answer `FF CA 03` / `FF CA 02`; nil when the name alone
        /// is the identification (ISO 15693, FeliCa, Jewel, …).
        public var anticollision: (atqa: [UInt8], sak: UInt8)?

        public static func == (lhs: CardName, rhs: CardName) -> Bool { lhs.code == rhs.code && lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }

    /// Card names (PC/SC part 3 supplemental document, "Card Name" table; the same list is in pcsc-tools'
    /// smartcard_list.txt "as per PCSC std part3"). Only the names NFCBridge meets or may meet are listed.
    public static let cardNames: [CardName] = [
        CardName(code: 0x0001, name: "MIFARE Classic 1K", anticollision: ([0x00, 0x04], 0x08)),
        CardName(code: 0x0002, name: "MIFARE Classic 4K", anticollision: ([0x00, 0x02], 0x18)),
        CardName(code: 0x0003, name: "MIFARE Ultralight", anticollision: ([0x00, 0x44], 0x00)),
        CardName(code: 0x0026, name: "MIFARE Mini", anticollision: ([0x00, 0x04], 0x09)),
        CardName(code: 0x003A, name: "MIFARE Ultralight C", anticollision: ([0x00, 0x44], 0x00)),
        CardName(code: 0x003D, name: "MIFARE Ultralight EV1", anticollision: ([0x00, 0x44], 0x00)),
        CardName(code: 0x0036, name: "MIFARE Plus SL1 2K", anticollision: nil),
        CardName(code: 0x0037, name: "MIFARE Plus SL1 4K", anticollision: nil),
        CardName(code: 0x0038, name: "MIFARE Plus SL2 2K", anticollision: nil),
        CardName(code: 0x0039, name: "MIFARE Plus SL2 4K", anticollision: nil),
        CardName(code: 0x002F, name: "Jewel", anticollision: nil),
        CardName(code: 0x0030, name: "Topaz NFC tag", anticollision: nil),
        CardName(code: 0x003B, name: "FeliCa", anticollision: nil),
        CardName(code: 0x0012, name: "Tag-it", anticollision: nil),
        CardName(code: 0x0013, name: "LRI512", anticollision: nil),
        CardName(code: 0x0014, name: "ICODE SLI", anticollision: nil),
        CardName(code: 0x0021, name: "LRI64", anticollision: nil),
        CardName(code: 0x0024, name: "LRI12", anticollision: nil),
        CardName(code: 0x0025, name: "LRI128", anticollision: nil),
        CardName(code: 0x0035, name: "ICODE SL2", anticollision: nil),
    ]

    /// A human description for messages: "MIFARE Classic 1K (ISO 14443 A, part 3)", "ISO 14443-4 card".
    public var summary: String {
        switch kind {
        case let .storage(standard, code):
            let standardName = Self.standards.first { $0.code == standard }?.name ?? "standard \(standard.hexString)"
            let name = cardName?.name ?? "card name \(UInt8(code >> 8).hexString)\(UInt8(code & 0xFF).hexString)"
            return "\(name) (\(standardName))"
        case .isoDEP: return "ISO 14443-4 card"
        }
    }
}

extension Target {
    /// The target a PC/SC reader's answers describe, fed to the same ``CardClassifier`` and family
    /// refinement as a libnfc target, so one tag gives one ``CardInfo/type`` whichever backend found it.
    ///
    /// - Parameters:
    ///   - atr: the parsed ATR.
    ///   - uid: `FF CA 00 00 00`'s answer (PC/SC part 3 §3.2.2.1.3 GET DATA). An ISO 15693 UID that a reader
    ///     gives as on the air (LSB first, ending in E0h) is turned MSB first, as ``Target/uid`` holds it.
    ///   - atqa: the reader's ATQA (MSB first) where it answers for it; else the card name's
    ///     (``ContactlessATR/CardName/anticollision``).
    ///   - sak: the reader's SAK where it answers for it; else the card name's, or 20h for an ISO-DEP card.
    ///   - ats: the reader's ATS without TL where it answers for it; else, for ISO-DEP type A, one built
    ///     from the ATR's historical bytes (T0 78h, TA 77h, TB 81h, TC 02h, as libnfc's pcsc driver does).
    /// - Returns: nil when the ATR names a technology NFCCore has no modulation for.
    public init?(contactlessATR atr: ContactlessATR, uid: [UInt8], atqa: [UInt8]?, sak: UInt8?, ats: [UInt8]?) {
        guard let modulation = atr.modulation else { return nil }
        switch (atr.kind, modulation) {
        case (.storage, .iso15693):
            var uid = uid
            if uid.count == 8, uid.first != 0xE0, uid.last == 0xE0 { uid.reverse() }
            self.init(modulation: .iso15693, uid: uid)
        case (.storage, .felica212), (.storage, .felica424):
            self.init(modulation: modulation, uid: uid)
        case (.storage, .iso14443b):
            self.init(modulation: .iso14443b, uid: uid)
        case (.storage, _):
            let fallback = atr.cardName?.anticollision
            self.init(
                modulation: .iso14443a, uid: uid, atqa: atqa ?? fallback?.atqa ?? [], sak: sak ?? fallback?.sak,
                ats: ats ?? [])
        case let (.isoDEP(historical), _):
            self.init(
                modulation: .iso14443a, uid: uid, atqa: atqa ?? [], sak: sak ?? 0x20,
                ats: ats ?? ([0x78, 0x77, 0x81, 0x02] + historical))
        }
    }
}
