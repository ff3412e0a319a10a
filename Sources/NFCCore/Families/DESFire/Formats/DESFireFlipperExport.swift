/// Flipper Zero `.nfc` export for MIFARE DESFire (file format Version 4, device type `Mifare DESFire`).
///
/// Keys, names and order as Flipper saves them and its loader reads them forward
/// (flipperzero-firmware `lib/nfc/protocols/mf_desfire/mf_desfire.c` `mf_desfire_save` /
/// `mf_desfire_load`, `mf_desfire_i.c` for the per-application and per-file keys): after the NFC-A
/// header the ATS as ISO 14443-4A keys (``atsLines(_:)``), `PICC Version` (28 bytes), the PICC key settings and key versions, `Application
/// Count`, `Application IDs` (3 bytes each, card order), then per application `Application <aid>`
/// (lower-case hex) key settings, key versions, `File IDs`, and per file `File <n>` (decimal) `Type`,
/// `Communication Settings`, `Access Rights` (2 bytes as received), the type's sizes, and the data line
/// when the file was read. See docs/formats.md.
enum DESFireFlipperExport {
    static let deviceType = "Mifare DESFire"

    /// True when ``export(_:)`` writes `dump` (the file-format table's `holds`, read by refusal hints
    /// without writing the file): a dump with the DESFire walk, not a Light, with a UID Flipper holds
    /// and the PICC key data Flipper's loader needs (``keyLines(_:_:versions:)``). A walk that did not ask
    /// for key data (``DESFireDump/keyDataAsked``: a dump read for bin, hex or a refused image format)
    /// cannot tell; it holds the card as a dump read for Flipper, which asks, would.
    @Sendable static func holds(_ dump: TagDump) -> Bool {
        guard let desfire = dump.desfire else { return false }
        return !desfire.isLight && FlipperNFCFormat.uidLengths.contains(dump.cardInfo.uid.count)
            && (!desfire.keyDataAsked || keyLines("PICC", desfire.piccKeySettings, versions: desfire.piccKeyVersions) != nil)
    }

    /// The dump as Flipper writes it (lines ending in `\n`).
    ///
    /// Flipper's loader gives up on a file without the PICC key settings or without the version of each
    /// of the PICC's or a listed application's `Max Keys` keys (``keyLines(_:_:versions:)``), and the file
    /// has no mark for "not read". So a dump without the PICC key data is refused, and an application
    /// without its key settings or key versions is left out (the count and the ID list with it), as
    /// applications and files the file cannot describe always were: the file holds what was read, never
    /// invented settings.
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for a dump without the DESFire walk (a JSON import
    ///   keeps only files and facts), for DESFire Light, whose one application has no 3-byte AID for
    ///   Flipper's keys, and for a dump without the PICC key settings or key versions (the card refused
    ///   GetKeySettings or GetKeyVersion): the file cannot hold these dumps, as the other formats'
    ///   `unsupported` says; ``NFCError/malformedDump(_:)`` for a UID Flipper cannot hold
    ///   (``FlipperNFCFormat/header(deviceType:uid:atqa:sak:)``).
    static func export(_ dump: TagDump) throws -> String {
        guard let desfire = dump.desfire else {
            throw NFCError.unsupportedOperation(
                "Flipper Zero export of MIFARE DESFire needs the application and file walk of a dump read from the card; this dump does not carry it")
        }
        guard !desfire.isLight else {
            throw NFCError.unsupportedOperation(
                "Flipper's Mifare DESFire file keys applications by a 3-byte AID; MIFARE DESFire Light's one application has none")
        }
        var lines = try FlipperNFCFormat.header(deviceType: deviceType, uid: dump.cardInfo.uid, atqa: dump.cardInfo.atqa ?? [0x03, 0x44],
                                            sak: dump.cardInfo.sak ?? 0x20)
        lines += try atsLines(dump.cardInfo.ats ?? [])
        lines.append("# Mifare DESFire specific data")
        lines.append("PICC Version: " + desfire.version.bytes.spacedHexString)
        guard let piccKeys = keyLines("PICC", desfire.piccKeySettings, versions: desfire.piccKeyVersions) else {
            throw NFCError.unsupportedOperation(
                "Flipper's Mifare DESFire file needs the PICC key settings and the version of each PICC key (its loader refuses "
                    + "a file without them); this dump does not have them ("
                    + (desfire.keyDataAsked ? "the card refused GetKeySettings or GetKeyVersion" : "it was read for a format without key data")
                    + "): use json")
        }
        lines += piccKeys
        // An application whose key settings or key versions the card refused cannot be written:
        // Flipper's loader needs them (mf_desfire_application_load).
        let apps = desfire.applications.compactMap { app -> (app: DESFireDump.Application, prefix: String, keys: [String])? in
            let prefix = "Application " + app.aid.hexString.lowercased()
            return keyLines(prefix, app.keySettings, versions: app.keyVersions).map { (app, prefix, $0) }
        }
        lines.append("Application Count: \(apps.count)")
        if !apps.isEmpty { lines.append("Application IDs: " + apps.flatMap(\.app.aid).spacedHexString) }
        for (app, prefix, keys) in apps {
            lines += keys
            // Flipper loads the settings of every listed file: only files whose settings were read,
            // and no Transaction MAC file (EV2+, type 05): Flipper's loader has varied on what it reads
            // for one (the header alone, or TMAC key option, version and counter limit), and one it
            // cannot read fails the whole file. It holds no data a ReadData returns either.
            let files = app.files.filter { file in
                guard let settings = file.settings else { return false }
                if case .transactionMAC = settings.details { return false }
                return true
            }
            if app.skipReason == nil { lines.append("\(prefix) File IDs: " + files.map(\.id).spacedHexString) }
            for file in files {
                guard let settings = file.settings else { continue }
                lines += fileLines("\(prefix) File \(file.id)", settings, content: file.content)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The ISO 14443-4A part as Flipper saves and loads it (`lib/nfc/protocols/iso14443_4a/iso14443_4a.c`
    /// `iso14443_4a_save` / `iso14443_4a_load`): the ATS split into `T0`, `TA(1)`, `TB(1)`, `TC(1)` (each
    /// only when T0 announces it) and `T1...Tk` (the historical bytes, when there are any). The loader
    /// knows no `ATS` key: a card without these lines answers RATS with TL alone (`01`). No ATS, no lines.
    /// - Throws: ``NFCError/malformedDump(_:)`` for an ATS that ends before an interface byte its T0
    ///   announces (Flipper's loader refuses a file whose T0 announces a missing key).
    static func atsLines(_ ats: [UInt8]) throws -> [String] {
        guard !ats.isEmpty else { return [] }
        guard let split = AnswerToSelect(withoutLength: ats) else {
            throw NFCError.malformedDump(
                "the ATS \(ats.spacedHexString) ends before the interface bytes its T0 announces: a Flipper file cannot hold it")
        }
        var lines = ["# ISO14443-4A specific data", "T0: " + split.t0.hexString]
        if let ta1 = split.ta1 { lines.append("TA(1): " + ta1.hexString) }
        if let tb1 = split.tb1 { lines.append("TB(1): " + tb1.hexString) }
        if let tc1 = split.tc1 { lines.append("TC(1): " + tc1.hexString) }
        if !split.historicalBytes.isEmpty { lines.append("T1...Tk: " + split.historicalBytes.spacedHexString) }
        return lines
    }

    /// The key lines of the PICC or an application (``keySettingsLines(_:_:versions:)``), or nil when the
    /// dump lacks what Flipper's loader reads: the key settings (`mf_desfire_key_settings_load`) and
    /// the version of each key 0 ..< `Max Keys` (`mf_desfire_key_version_load`, called for every one by
    /// `mf_desfire_load` and `mf_desfire_application_load`; flipperzero-firmware
    /// `lib/nfc/protocols/mf_desfire/mf_desfire.c`, `mf_desfire_i.c`).
    static func keyLines(_ prefix: String, _ settings: DESFireKeySettings?, versions: [UInt8]?) -> [String]? {
        guard let settings else { return nil }
        let versions = versions ?? []
        guard versions.count >= settings.keyCount else { return nil }
        return keySettingsLines(prefix, settings, versions: Array(versions.prefix(settings.keyCount)))
    }

    /// `<prefix> Change Key ID` … `Max Keys`, then `<prefix> Key <n> Version` (`mf_desfire_key_settings_save`;
    /// Flipper splits the max-keys byte into `Max Keys`, bits 3..0, and `Flags`, bits 7..4).
    static func keySettingsLines(_ prefix: String, _ settings: DESFireKeySettings, versions: [UInt8]) -> [String] {
        var lines = [
            "\(prefix) Change Key ID: " + settings.changeKeyID.hexString,
            "\(prefix) Config Changeable: \(settings.configurationChangeable)",
            "\(prefix) Free Create Delete: \(settings.freeCreateDelete)",
            "\(prefix) Free Directory List: \(settings.freeDirectoryList)",
            "\(prefix) Key Changeable: \(settings.masterKeyChangeable)",
            "\(prefix) Flags: " + (settings.maxKeys >> 4).hexString,
            "\(prefix) Max Keys: " + (settings.maxKeys & 0x0F).hexString,
        ]
        for (index, version) in versions.enumerated() { lines.append("\(prefix) Key \(index) Version: " + version.hexString) }
        return lines
    }

    /// One file's settings (`mf_desfire_file_settings_save`) and, when read, its data line.
    static func fileLines(_ prefix: String, _ settings: DESFireFileSettings, content: DESFireDump.Content?) -> [String] {
        var lines = [
            "\(prefix) Type: " + settings.fileType.rawValue.hexString,
            "\(prefix) Communication Settings: " + settings.communicationSettings.hexString,
            "\(prefix) Access Rights: " + settings.accessRights.bytes.spacedHexString,
        ]
        switch settings.details {
        case let .data(size):
            lines.append("\(prefix) Size: \(size)")
        case let .value(lower, upper, credit, enabled):
            lines.append("\(prefix) Hi Limit: \(UInt32(bitPattern: upper))")
            lines.append("\(prefix) Lo Limit: \(UInt32(bitPattern: lower))")
            lines.append("\(prefix) Limited Credit Value: \(UInt32(bitPattern: credit))")
            lines.append("\(prefix) Limited Credit Enabled: \(enabled)")
        case let .records(size, max, current):
            lines.append("\(prefix) Size: \(size)")
            lines.append("\(prefix) Max: \(max)")
            lines.append("\(prefix) Cur: \(current)")
        case .transactionMAC:
            break  // not listed (export(_:))
        }
        if let bytes = content?.bytes, !bytes.isEmpty { lines.append("\(prefix): " + bytes.spacedHexString) }
        return lines
    }
}
