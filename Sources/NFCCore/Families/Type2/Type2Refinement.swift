/// Refines a coarse Ultralight / NTAG (or Classic-looking) identification with Type 2 probes.
///
/// Probe order and why:
/// 1. Classic-looking tags (SAK 08/09/18) with a 7-byte UID: READ 30 00 and check the manufacturer
///    pages against the UID (UID0-2, BCC0 = 88h ^ UID0 ^ UID1 ^ UID2, UID3-6, BCC1 = UID3 ^ … ^ UID6).
///    Only a Type 2 tag answers READ without Crypto1 with exactly its UID; anything else stays Classic.
/// 2. GET_VERSION (60h, raw framing): the full 8 bytes go through ``GetVersionTable``.
/// 3. No GET_VERSION: the rows without it (``Type2Product/rowsWithoutGetVersion(answeringRefused:)``;
///    Ultralight C and NTAG203 NAK it, a plain Ultralight stays silent — each row's
///    ``Type2Product/unsupportedCommandAnswer``) are told apart by memory size, largest first: re-select,
///    READ 2Bh. Only Ultralight C has a page 2Bh (16 bytes back ⇒ Ultralight C).
/// 4. READ 2Bh refused: re-select and READ 29h (page 41), as Flipper does: NTAG203 has 42 pages and
///    answers, a plain Ultralight (16 pages) refuses ⇒ generic Ultralight. Both READs are sent whatever
///    GET_VERSION's answer was, so a clone that answers unlike its datasheet is still sized. An Ultralight C with
///    AUTH0 at 2Ah/2Bh and read protection would also answer here and be taken for an NTAG203; without
///    its 3DES key nothing on the tag tells the two apart.
/// 5. GET_VERSION NAKed and both READs refused: AUTHENTICATE part 1 (1A 00). An Ultralight C whose AUTH0
///    protects page 29h and below answers AFh + 8 bytes (MF0ICU2 §7.5.5) ⇒ Ultralight C; else generic.
/// After every refused or unanswered probe the tag is re-selected (see ``Type2Command/probe(via:)``).
enum Type2Refinement {
    /// Refines `info` (type `.mifareUltralight`, or a Classic type with a 7-byte UID); other infos are
    /// returned unchanged.
    static func refine(_ info: CardInfo, transport: some TagTransport) async throws -> CardInfo {
        var info = info
        switch info.type.family {
        case .mifareClassic:
            guard info.uid.count == 7 else { return info }
            let result = try await Type2Command.read(page: 0).probe(via: transport)
            guard case let .answered(bytes) = result else {
                info.probes.append("READ 00: \(result.summary)")
                return info
            }
            guard manufacturerPagesMatch(bytes, uid: info.uid) else {
                info.probes.append("READ 00: not Type 2 (UID/BCC mismatch)")
                return info
            }
            info.probes.append("READ 00: Type 2 manufacturer pages")
            info.type = .mifareUltralight
            return try await refineByVersion(info, transport: transport)
        case .mifareUltralight, .ntag:
            return try await refineByVersion(info, transport: transport)
        default:
            return info
        }
    }

    /// True when `bytes` (READ 30 00) hold the 7-byte `uid` with valid BCC0/BCC1 (ISO/IEC 14443-3 §6.5.3.3).
    static func manufacturerPagesMatch(_ bytes: [UInt8], uid: [UInt8]) -> Bool {
        guard uid.count == 7, bytes.count >= 12 else { return false }
        return Array(bytes[0..<3]) == Array(uid[0..<3])
            && bytes[3] == ISO14443.bcc([0x88] + uid[0..<3])
            && Array(bytes[4..<8]) == Array(uid[3..<7])
            && bytes[8] == ISO14443.bcc(Array(uid[3..<7]))
    }

    private static func refineByVersion(_ info: CardInfo, transport: some TagTransport) async throws -> CardInfo {
        var info = info
        let version: Type2ProbeResult
        do {
            version = try await Type2Command.getVersion.probe(via: transport)
        } catch let NFCError.unsupportedOperation(reason) {
            // The reader cannot send the frame at all (a PC/SC reader without a transparent session or
            // an escape): nothing reached the tag. The CC sizes it instead.
            return try await refineByCapabilityContainer(info, transport: transport, reason: reason)
        }
        if case let .answered(bytes) = version {
            guard let match = GetVersionTable.lookup(bytes) else {
                info.probes.append("GET_VERSION: invalid \(bytes.hexString)")
                info.type = .mifareUltralight
                return info
            }
            info.probes.append("GET_VERSION: \(bytes.hexString)")
            info.version = bytes
            info.type = match.product.cardType
            info.product = match.isExact ? Product(match.product) : nil
            return info
        }
        info.probes.append("GET_VERSION: \(version.summary)")

        // No GET_VERSION: one of the rows without it (MF0ICU2, NTAG203 NAK; MF0ICU1 stays silent). READ of
        // each larger row's last readable page (2Bh: Ultralight C, 29h: NTAG203), largest first, answers only
        // on that row or a larger one; none answering leaves the smallest, the plain Ultralight.
        let candidates = Type2Product.rowsWithoutGetVersion(answeringRefused: version == .refused)
        guard let smallest = candidates.last else { return info }
        for row in candidates.dropLast() where row.map.readablePages > smallest.map.readablePages {
            let page = UInt8(row.map.readablePages - 1)
            let result = try await Type2Command.read(page: page).probe(via: transport)
            info.probes.append("READ \(page.hexString): \(result.summary)")
            if case let .answered(bytes) = result, bytes.count == 16 {
                info.type = row.cardType
                return info
            }
        }
        // Both READs refused after a NAKed GET_VERSION: NTAG203 (42 pages, no read protection) would have
        // answered READ 29h, so this is an Ultralight C whose AUTH0 protects page 29h and below — or a
        // plain Ultralight. AUTHENTICATE part 1 (1A 00) tells them apart: an Ultralight C answers AFh and
        // ek(RndB) whatever AUTH0 says (MF0ICU2 §7.5.5, §9.7); the tag is re-selected afterwards.
        if version == .refused, candidates.contains(where: { $0.cardType == .mifareUltralightC }) {
            let answer = try await authenticatePart1(via: transport)
            info.probes.append("AUTHENTICATE 1A: \(answer.summary)")
            if case let .answered(bytes) = answer, bytes.count == 9, bytes.first == 0xAF {
                info.type = .mifareUltralightC
                return info
            }
        }
        info.type = smallest.cardType
        return info
    }

    /// The type a tag's CC sizes, for a reader that cannot send GET_VERSION: READ 03 (which every
    /// reader maps to its read command), then the base rows whose factory CC announces that data area
    /// (``Type2Product/factoryCapabilityContainer``). The classified type stays when it is one of them;
    /// else an NTAG row (NTAG213 and Ultralight C both announce 144 bytes: the NTAG is the common one);
    /// a tag without an NDEF CC keeps its classified type. ``CardInfo/notRefined`` says what was missed.
    static func refineByCapabilityContainer(_ info: CardInfo, transport: some TagTransport, reason: String) async throws -> CardInfo {
        var info = info
        info.probes.append("GET_VERSION: not sent")
        let step = "GET_VERSION (60h)"
        let read = try await Type2Command.read(page: 3).probe(via: transport)
        guard case let .answered(bytes) = read, let cc = Type2CapabilityContainer(bytes: Array(bytes.prefix(4))), cc.isNDEF else {
            info.probes.append("READ 03: \(read.summary), no NDEF CC")
            info.notRefined.append(RefinementGap(step: step, reason: "\(reason); no NDEF CC to size the tag: typed from the ATR"))
            return info
        }
        info.probes.append("READ 03: CC data area \(cc.dataAreaSize) bytes")
        let rows = Type2Product.baseRows.filter { $0.factoryCapabilityContainer.dataAreaSize == cc.dataAreaSize }
        let chosen = rows.first { $0.cardType == info.type } ?? rows.first { $0.cardType.family == .ntag } ?? rows.first
        guard let chosen else {
            info.notRefined.append(RefinementGap(
                step: step, reason: "\(reason); the CC's data area (\(cc.dataAreaSize) bytes) fits no product: typed from the ATR"))
            return info
        }
        info.type = chosen.cardType
        info.product = nil
        let fits = rows.map(\.name).joined(separator: ", ")
        info.notRefined.append(RefinementGap(
            step: step, reason: "\(reason); typed \(chosen.name) from the CC's data area (\(cc.dataAreaSize) bytes fits \(fits))"))
        return info
    }

    /// AUTHENTICATE part 1 (`1A 00`, raw framing as ``UltralightCAuthentication`` sends it), then a
    /// re-select whatever the answer, so no half-done authentication is left behind.
    static func authenticatePart1(via transport: some TagTransport) async throws -> Type2ProbeResult {
        let result: Type2ProbeResult
        do {
            result = .answered(try await transport.transceive([0x1A, 0x00], framing: .raw))
        } catch NFCError.commandRefused, NFCError.rfError {
            result = .refused
        } catch NFCError.timeout {
            result = .noAnswer
        } catch NFCError.unsupportedOperation {
            // A reader that cannot send the raw frame (PC/SC without a transparent session): nothing
            // was sent, so nothing is learnt and nothing needs undoing.
            return .noAnswer
        }
        try await transport.reselect()
        return result
    }
}
