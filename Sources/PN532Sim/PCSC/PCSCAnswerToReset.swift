/// The ATR a PC/SC contactless reader builds for the card in its field — the simulator's own table,
/// from the PC/SC Interoperability Specification part 3 (Supplemental Document for Contactless ICCs,
/// rev. 2.02, §3.1.3.2.3) and the ATRs ACS and Gemalto print in their reader manuals.
///
/// Storage cards (no ISO/IEC 14443-4) get `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK`:
/// TS, T0 (TD1 follows, 15 historical bytes), TD1 (TD2 follows, T=0), TD2 (T=1), then the historical
/// bytes — category 80, tag 4F (application identifier) of length 0C: RID A0 00 00 03 06, the standard
/// byte SS, the card name NN NN and four RFU bytes — and TCK, the XOR of T0 to the last historical byte.
/// ISO/IEC 14443-4 type A cards get `3B 8n 80 01 <historical bytes of the ATS> TCK`, type B cards
/// `3B 88 80 01 <ATQB application data (4)> <ATQB protocol info (3)> <MBLI << 4> TCK` (§3.1.3.2.3.2; the
/// same mapping in SCM/Identiv SCL3711 reference manual §5.3.3.5 "ATR for ISO/IEC 14443-4 user tokens").
public enum PCSCAnswerToReset {
    /// Registered application provider identifier of the PC/SC Workgroup (part 3 §3.1.3.2.3.1).
    public static let rid: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]

    /// The standard byte SS (part 3 table 3-6).
    public enum Standard: UInt8, Sendable {
        /// ISO/IEC 14443 A, part 3.
        case iso14443APart3 = 0x03
        /// ISO/IEC 15693, part 3.
        case iso15693Part3 = 0x0B
        /// FeliCa.
        case felica = 0x11
    }

    /// Card names NN NN (part 3 table 3-7, the PC/SC Workgroup's card name registry) for the storage
    /// cards the simulator models.
    public enum CardName {
        public static let mifareClassic1K: [UInt8] = [0x00, 0x01]
        public static let mifareClassic4K: [UInt8] = [0x00, 0x02]
        /// "Mifare Ultra light": what ACR122U/ACR1252U report for every SAK 00 tag (Ultralight, NTAG21x).
        public static let mifareUltralight: [UInt8] = [0x00, 0x03]
        /// "ICODE SLI" (NXP SL2S2002 and its SLIX successors).
        public static let icodeSLI: [UInt8] = [0x00, 0x14]
        public static let mifareMini: [UInt8] = [0x00, 0x26]
        public static let felica: [UInt8] = [0x00, 0x3B]
        /// No registered name (the reader knows the standard but not the product).
        public static let unnamed: [UInt8] = [0x00, 0x00]
    }

    /// SAK → card name, the way contactless readers name ISO/IEC 14443-3 A storage cards (ACR122U API
    /// §4.1 and ACR1252U reference manual §5.1: they look at the SAK only, so an NTAG215 is an
    /// "Ultralight"). SAK values from NXP AN10833 §3.2.
    static let cardNameBySAK: [UInt8: [UInt8]] = [
        0x00: CardName.mifareUltralight,
        0x08: CardName.mifareClassic1K,
        0x88: CardName.mifareClassic1K,  // Infineon SLE 66R35
        0x09: CardName.mifareMini,
        0x18: CardName.mifareClassic4K,
        0x38: CardName.mifareClassic4K,  // SmartMX with a Classic 4K emulation, without ISO-DEP selected
    ]

    /// The storage-card ATR for standard `standard` and card name `name`.
    public static func storageCard(standard: Standard, name: [UInt8]) -> [UInt8] {
        let historical: [UInt8] = [0x80, 0x4F, 0x0C] + rid + [standard.rawValue] + name + [0x00, 0x00, 0x00, 0x00]
        return withCheckByte([0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical)
    }

    /// The ISO/IEC 14443-4 type A ATR: the historical bytes of `ats` (ATS without TL: T0, the
    /// interface bytes its Y1 bits announce, then the historical bytes; ISO/IEC 14443-4 §5.2).
    public static func isoDEP(ats: [UInt8]) -> [UInt8] {
        let historical = Array(historicalBytes(ofATS: ats).prefix(15))
        return withCheckByte([0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical)
    }

    /// The ISO/IEC 14443-4 type B ATR: eight historical bytes — the ATQB's application data (bytes 1–4)
    /// and protocol info (5–7), then the MBLI the card gave in its ATTRIB answer in the high nibble of
    /// byte 8, low nibble 0 (PC/SC part 3 §3.1.3.2.3.2).
    public static func typeB(applicationData: [UInt8], protocolInfo: [UInt8], mbli: UInt8) -> [UInt8] {
        let historical = Array(applicationData.prefix(4)) + Array(protocolInfo.prefix(3)) + [(mbli & 0x0F) << 4]
        return withCheckByte([0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical)
    }

    /// The historical bytes of an ATS given without its TL byte.
    static func historicalBytes(ofATS ats: [UInt8]) -> [UInt8] {
        guard let t0 = ats.first else { return [] }
        // Y1 (bits 5-7 of T0) announces TA(1), TB(1), TC(1).
        let interfaceBytes = [0x10, 0x20, 0x40].filter { t0 & UInt8($0) != 0 }.count
        return Array(ats.dropFirst(1 + interfaceBytes))
    }

    /// `bytes` followed by TCK, the XOR of every byte after TS (ISO/IEC 7816-3 §8.2.5).
    static func withCheckByte(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [bytes.dropFirst().reduce(0, ^)]
    }

    /// The ATR a reader gives for `tag`; nil for a tag a PC/SC part 3 reader cannot name (the card
    /// is then not presented).
    public static func make(for tag: any VirtualTag) -> [UInt8]? {
        let target = tag.target
        // The simulator's own table of what a part 3 reader presents per technology (PC/SC part 3
        // §3.1.3.2.3), never NFCCore's: the two are written apart so that they can disagree.
        switch target.modulation {
        case .iso14443a:
            if target.isISODEP, tag is ISODEPVirtualTag { return isoDEP(ats: target.ats) }
            let name = cardNameBySAK[target.sak ?? 0] ?? CardName.unnamed
            return storageCard(standard: .iso14443APart3, name: name)
        case .felica212, .felica424:
            return storageCard(standard: .felica, name: CardName.felica)
        case .iso15693:
            let name = (tag as? ISO15693VirtualTag)?.pcscCardName ?? CardName.unnamed
            return storageCard(standard: .iso15693Part3, name: name)
        case .iso14443b:
            // Only ISO/IEC 14443-4 B cards have a PC/SC ATR: the simulator's one is ``VirtualTypeBTag``
            // (Protocol_Type 1 in its ATQB), which answers ATTRIB with MBLI 0 (no buffer limit given,
            // ISO/IEC 14443-3 §7.11).
            guard tag is VirtualTypeBTag, target.applicationData.count == 4, target.protocolInfo.count == 3 else { return nil }
            return typeB(applicationData: target.applicationData, protocolInfo: target.protocolInfo, mbli: 0)
        case .jewel:
            // The simulator has no Jewel/Topaz tag to present.
            return nil
        }
    }
}
