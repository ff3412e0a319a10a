import Synchronization

/// Reads everything an Ultralight / NTAG gives without authentication into a ``TagDump``.
///
/// Speed matters (the benchmark is libnfc's nfc-mfultralight): products with FAST_READ are read in
/// chunks of at most ``maxFastReadPages`` pages (libnfc cannot return more than about 262 bytes from one
/// exchange), the others with READ in 4-page steps. Cancellation is checked before every command.
///
/// Pages are read through ``Type2Memory``, the family's one page reader (its FAST_READ chunks, READ
/// roll-over rule and refusal handling are those of the NDEF read and the write).
///
/// Read protection (AUTH0 with PROT, or Ultralight C AUTH0/AUTH1): reading stops at the first page the
/// tag refuses (``Type2Memory/refusedFrom``, the page an NDEF read or a write of the same tag stops at).
/// Pages read so far are kept, the fact `Unauthenticated Boundary` names the page and the
/// capabilities become authentication required + partially readable. A READ that starts below AUTH0
/// rolls over to page 0 at AUTH0 (MF0ICU2 §9.2, NTAG213/215/216 §10.2) instead of failing; the
/// roll-over copies are recognised and not kept. A refused FAST_READ chunk falls back to READ from its
/// first page. Ultralight C key pages 44–47 are never read.
///
/// When READ_SIG answered, the fact `Originality Signature` says whether the signature verifies against a
/// known NXP key (``OriginalitySignature/fact(uid:signature:)``: "Valid (NXP NTAG21x)" or
/// "Not verified (no known NXP key matches)").
///
/// Partial results: when the tag leaves mid-dump the call throws ``NFCError/tagRemoved`` (and
/// `CancellationError` when cancelled). Callers that want the pages read until then pass a
/// ``Progress``: it holds every page read so far, whatever way the dump ends. That keeps the
/// error type simple (the agent matches on `tag_removed`) while the CLI can still save a partial dump.
public enum Type2Dump {
    /// Largest FAST_READ range: 60 pages = 240 bytes, under libnfc's ~262-byte answer limit.
    public static let maxFastReadPages = 60

    /// Pages read so far by a running (or ended) dump; safe to read from any thread.
    public final class Progress: Sendable {
        private let state = Mutex<[Page]>([])
        private let observer: DumpProgress?

        /// Creates an empty progress record that also counts the pages in `observer` (the dump's
        /// family-neutral ``DumpOptions/progress``).
        public init(reportingTo observer: DumpProgress? = nil) {
            self.observer = observer
        }

        /// Pages read so far, in page order. After a refusal the pages past the boundary are dropped.
        public var pages: [Page] { state.withLock { $0 } }

        func update(_ pages: [Page]) {
            state.withLock { $0 = pages }
            observer?.advance(to: pages.count)
        }
    }

    /// The dump of the `pages` read before `error` ended a dump of `info` (what `nfcbridge dump --output`
    /// keeps); nil when no page was read.
    public static func partialDump(info: CardInfo, pages: [Page], after error: NFCError) -> TagDump? {
        guard !pages.isEmpty else { return nil }
        return TagDump(
            cardInfo: info, pages: pages,
            facts: [
                Fact(key: "Pages", value: "\(pages.count)"),
                Fact(key: "Dump Interrupted", value: "\(error.code) after \(pages.count) pages"),
            ],
            capabilities: [.partiallyReadable])
    }

    /// Dumps the Type 2 tag `info` describes (as ``TagIdentifier/identify(_:)`` left it: ACTIVE).
    /// With `chipData` false only the pages are read (no READ_SIG, READ_CNT, CHECK_TEARING_EVENT):
    /// for an output that holds pages only, such as a libnfc MFD file (``DumpTarget``).
    ///
    /// Throws ``NFCError/unsupportedOperation(_:)`` for a non-Type 2 `info`, ``NFCError/tagRemoved``
    /// when the tag cannot be re-selected, `CancellationError` when the task is cancelled.
    ///
    /// `keys` (the keys file's Ultralight C keys and NTAG passwords, ``Type2KeyedRead``) open the pages
    /// past the first refused one; the fact `Authentication` says which key name did what.
    public static func dump(info: CardInfo, transport: some TagTransport, progress: Progress? = nil,
                            chipData: Bool = true, keys: Type2Keys = .standard) async throws -> TagDump
    {
        guard let memory = try? Type2Memory(transport: transport, info: info) else {
            throw NFCError.unsupportedOperation("\(info.type) is not a Type 2 tag")
        }
        let product = memory.product, map = memory.map
        memory.progress = progress
        var boundary = try await readAll(memory)
        var authentications: [Type2Authentication] = []
        if boundary != nil, !keys.ultralightC.isEmpty || !keys.passwords.isEmpty {
            authentications = try await Type2KeyedRead.open(memory, keys: keys)
            if authentications.contains(where: { $0.outcome == .opened || $0.outcome == .packMismatch }) {
                boundary = try await readAll(memory)
            }
        }
        let pages = memory.pages
        let extras = chipData
            ? try await readExtras(product: product, map: map, pages: pages, transport: transport)
            : Type2Extras(totalPages: map.totalPages)
        var dump = makeDump(info: info, map: map, pages: pages, boundary: boundary, extras: extras)
        dump.facts += authentications.map(\.fact)
        return dump
    }

    // MARK: - Pages

    /// Reads every page READ can address through ``Type2Memory`` (FAST_READ chunks, the READ roll-over
    /// rule); returns the first page the tag refused, nil when all were read. A refusal, no answer or a
    /// short answer ends the walk there; the pages before it are kept.
    private static func readAll(_ memory: Type2Memory) async throws -> Int? {
        do {
            try await memory.read(Array(0..<memory.map.readablePages))
            return nil
        } catch NFCError.authenticationRequired, NFCError.commandRefused, NFCError.timeout, NFCError.invalidResponse {
            return memory.refusedFrom ?? (0..<memory.map.readablePages).first { memory.known[$0] == nil }
        }
    }

    // MARK: - Signature, counters, tearing flags

    private static func readExtras(product: Type2Product, map: Type2MemoryMap, pages: [Page],
                                   transport: some TagTransport) async throws -> Type2Extras
    {
        var extras = Type2Extras(totalPages: map.totalPages)
        if let length = product.signatureLength {
            try Task.checkCancellation()
            if case let .answered(bytes) = try await Type2Command.readSignature.probe(via: transport), bytes.count >= length {
                extras.signature = Array(bytes.prefix(length))
            }
        }
        if product.features.contains(.readCounter) {
            // NTAG21x: READ_CNT is NAKed unless NFC_CNT_EN is set, and without PWD_AUTH when
            // NFC_CNT_PWD_PROT is; skip it (no NAK, no re-select) when the ACCESS byte says so.
            let access = map.accessPage.flatMap { number in pages.first { $0.number == number }?.data.first }
            let counterReadable = !product.counterNeedsEnable || access.map { $0 & 0x10 != 0 && $0 & 0x08 == 0 } ?? true
            for counter in product.counters where counterReadable && counter < 3 {
                try Task.checkCancellation()
                if case let .answered(bytes) = try await Type2Command.readCounter(counter).probe(via: transport),
                    bytes.count >= 3
                {
                    extras.counters[Int(counter)] = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
                }
            }
        }
        if product.features.contains(.checkTearingEvent) {
            for counter in product.tearingCounters where counter < 3 {
                try Task.checkCancellation()
                if case let .answered(bytes) = try await Type2Command.checkTearingEvent(counter).probe(via: transport),
                    let flag = bytes.first
                {
                    extras.tearing[Int(counter)] = flag
                }
            }
        }
        return extras
    }

    // MARK: - Result

    private static func makeDump(info: CardInfo, map: Type2MemoryMap, pages: [Page], boundary: Int?,
                                 extras: Type2Extras) -> TagDump
    {
        var facts = [Fact(key: "Pages", value: "\(pages.count)")]
        if let boundary { facts.append(Fact(key: "Unauthenticated Boundary", value: "Page \(boundary)")) }
        let ndefMessage = ndefMessage(in: pages, map: map)
        if let ndefMessage { facts.append(Fact(key: "NDEF Bytes", value: "\(ndefMessage.count)")) }
        // Checked against NXP's keys; a signature that does not verify is reported, never an error.
        if let signature = extras.signature { facts.append(OriginalitySignature.fact(uid: info.uid, signature: signature)) }

        var capabilities: [CardCapability] = [.readable]
        if let keyPages = map.keyPages {
            facts.append(Fact(key: "Readable Pages", value: "0-\(keyPages.lowerBound - 1)"))
            facts.append(Fact(key: "Secret Key Pages", value: "\(keyPages.lowerBound)-\(keyPages.upperBound)"))
            if let access = UltralightCAccess(pages: pages) { facts += access.facts }
            capabilities = [.partiallyReadable]
        }
        if boundary != nil { capabilities = [.authenticationRequired, .partiallyReadable] }

        return TagDump(cardInfo: info, pages: pages, ndefMessage: ndefMessage, facts: facts,
                       capabilities: capabilities, family: .type2(extras))
    }

    /// The NDEF message in the user area, if the tag is NDEF formatted: the CC magic number E1h in
    /// page 3 byte 0 (T2T §6.4.1, NDEF detection) — amiibo-style CCs (F1 10 FF EE) have none.
    static func ndefMessage(in pages: [Page], map: Type2MemoryMap) -> [UInt8]? {
        ndefMessage(inImage: pages.filter { $0.number <= map.userEnd })
    }

    /// The NDEF message of an imported page image, under the same rule: none unless page 3 starts with
    /// the CC magic number E1h (an amiibo file — Flipper's own `Ntag215.nfc`, CC `F1 10 FF EE` — holds
    /// encrypted data whose bytes a TLV walk would take for a message).
    static func ndefMessage(inImage pages: [Page]) -> [UInt8]? {
        guard pages.first(where: { $0.number == 3 })?.data.first == Type2CapabilityContainer.ndefMagic else { return nil }
        return NFCForumTLV.extractMessage(from: pages)
    }
}
