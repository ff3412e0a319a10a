/// Reads only the NDEF message of a Type 2 tag, with as few commands as its TLVs allow — what a scan
/// needs, where ``Type2Dump`` reads the whole memory.
///
/// NFC Forum T2T §6.4.1 (NDEF detection) and §6.4.2 (NDEF read): READ page 3 gives the capability
/// container and pages 4–6; no E1h magic number means no NDEF. Then ``Type2TLV/walk(memory:start:end:controlTLVs:)``
/// walks NULL, Lock Control, Memory Control and Proprietary TLVs and asks for exactly the pages up to the
/// last byte of the NDEF Message TLV, which come with FAST_READ where the product has it (at most
/// ``Type2Dump/maxFastReadPages`` a frame), with READ otherwise. The data area ends where the CC says,
/// never past the product's user memory (as ``Type2NDEFWriter`` writes it).
///
/// Read protection: FAST_READ of a range reaching a protected page is refused as a whole, which is why
/// only the pages the walk needs are asked for (a READ brings four pages anyway). A READ starting below
/// AUTH0 rolls over to page 0 at AUTH0 (MF0ICU2 §9.2, NTAG213/215/216 §10.2): a page of a READ answer
/// that looks like page 0 (UID0–2, BCC0) — or any page after the first, on products with a password
/// when the UID does not tell page 0 — is not trusted and READ again as the first page of its own READ,
/// which the tag refuses if it is protected. A refused page ends the read with
/// ``NDEFReadResult/unreadable(_:)`` (``NFCError/authenticationRequired`` on products with a password,
/// ``NFCError/commandRefused(command:nak:)`` otherwise) after re-selecting the tag.
enum Type2NDEFReader {
    /// Reads the NDEF message of the Type 2 tag `info` describes (ACTIVE, as identification left it).
    /// Throws ``NFCError/tagRemoved`` when the tag is gone and `CancellationError` when cancelled; other
    /// trouble is an ``NDEFReadResult/unreadable(_:)`` result.
    static func read(info: CardInfo, transport: some TagTransport) async throws -> NDEFReadResult {
        guard let product = Type2Product.forCardInfo(info), let map = product.memoryMap else {
            return .notRead(.unsupportedOperation("\(info.type) is not a Type 2 tag"))
        }
        var reader = PageReader(transport: transport, map: map, uid: info.uid)

        // READ 3 answers pages 3–6: the CC and the first 12 bytes of the data area.
        if let failure = try await reader.fetch(through: 3, keepingUpTo: min(6, map.userEnd), fastRead: false) {
            return .unreadable(failure)
        }
        let cc = reader.capabilityContainer
        guard cc.isNDEF else { return .noMessage }
        guard cc.majorVersion == 1 else {
            return .unreadable(.unsupportedOperation("Type 2 mapping version \(cc.majorVersion).x (CC \(cc)) is not supported"))
        }
        guard cc.readAccess == 0 else {
            return .unreadable(.unsupportedOperation("The CC (\(cc)) grants no read access to the NDEF data"))
        }
        let end = Type2TLV.dataAreaOffset + min(cc.dataAreaSize, map.userBytes)
        let lastDataPage = (end - 1) / 4
        let fastRead = product.features.contains(.fastRead)

        while true {
            let walk = Type2TLV.walk(memory: reader.memory, end: end)
            if let result = NDEFReadResult(walk: walk, area: "the data area of \(end - Type2TLV.dataAreaOffset) bytes") {
                return result
            }
            guard case let .needsMemory(upTo) = walk else { return .unreadable(.invalidResponse([])) }
            let needed = (upTo - 1) / 4
            // Every round must read a page the walk lacks, or the loop would never end.
            guard needed >= reader.nextPage, needed <= lastDataPage else { return .unreadable(.invalidResponse([])) }
            if let failure = try await reader.fetch(through: needed, keepingUpTo: lastDataPage, fastRead: fastRead) {
                return .unreadable(failure)
            }
        }
    }

    /// The pages read so far, from page 3 on without gaps, and how to read more.
    private struct PageReader<Transport: TagTransport> {
        let transport: Transport
        /// True when the product can read-protect pages from AUTH0 (its READ then rolls over there).
        let hasPasswordProtection: Bool
        /// Page 0 as the tag holds it (UID0–2, BCC0 = 88h ⊕ UID0 ⊕ UID1 ⊕ UID2, ISO/IEC 14443-3),
        /// known for 7-byte UIDs; nil otherwise.
        let pageZero: [UInt8]?
        /// Tag memory from page 0; pages 0–2 are not read and stay zeros.
        private(set) var memory = [UInt8](repeating: 0, count: 12)

        init(transport: Transport, map: Type2MemoryMap, uid: [UInt8]) {
            self.transport = transport
            hasPasswordProtection = map.auth0Offset != nil
            pageZero = uid.count == 7 ? Array(uid.prefix(3)) + [ISO14443.bcc([0x88] + uid.prefix(3))] : nil
        }

        /// The first page not read yet.
        var nextPage: Int { memory.count / 4 }

        /// Page 3 (read by the first ``fetch(through:keepingUpTo:fastRead:)``).
        var capabilityContainer: Type2CapabilityContainer {
            Type2CapabilityContainer(bytes: Array(memory[12..<16])) ?? Type2CapabilityContainer(dataAreaSize: 0)
        }

        /// Reads pages ``nextPage`` through `needed` (FAST_READ: exactly those; READ: the extra pages of
        /// its answer too, up to `limit`). Returns why a needed page could not be read, nil when all were.
        mutating func fetch(through needed: Int, keepingUpTo limit: Int, fastRead: Bool) async throws -> NFCError? {
            while nextPage <= needed {
                try Task.checkCancellation()
                let failure = fastRead ? try await fastReadRun(through: needed) : try await readStep(keepingUpTo: limit)
                if let failure { return failure }
            }
            return nil
        }

        /// One FAST_READ from ``nextPage`` through `needed` (or as far as one frame goes).
        private mutating func fastReadRun(through needed: Int) async throws -> NFCError? {
            let first = nextPage
            let last = min(needed, first + Type2Dump.maxFastReadPages - 1)
            let command = Type2Command.fastRead(start: UInt8(clamping: first), end: UInt8(clamping: last))
            switch try await command.probe(via: transport) {
            case let .answered(bytes):
                let count = (last - first + 1) * 4
                guard bytes.count >= count else { return .invalidResponse(bytes) }
                memory += bytes.prefix(count)
                return nil
            case .refused:
                return refusal(command: 0x3A)
            case .noAnswer:
                return .timeout
            }
        }

        /// One READ at ``nextPage``: that page is always what it says; the three after it are kept up to
        /// `limit` unless one may be a roll-over copy of page 0.
        private mutating func readStep(keepingUpTo limit: Int) async throws -> NFCError? {
            let first = nextPage
            switch try await Type2Command.read(page: UInt8(clamping: first)).probe(via: transport) {
            case let .answered(bytes):
                guard bytes.count >= 16 else { return .invalidResponse(bytes) }
                memory += bytes.prefix(4)
                for index in 1..<4 where first + index <= limit {
                    let page = Array(bytes[index * 4..<index * 4 + 4])
                    // A page equal to page 0 is re-read on any product (a protected Ultralight C may be
                    // identified as a plain Ultralight); without page 0 known, only where AUTH0 exists.
                    if page == pageZero || (pageZero == nil && hasPasswordProtection) { break }
                    memory += page
                }
                return nil
            case .refused:
                return refusal(command: 0x30)
            case .noAnswer:
                return .timeout
            }
        }

        private func refusal(command: UInt8) -> NFCError {
            hasPasswordProtection ? .authenticationRequired : .commandRefused(command: command, nak: nil)
        }
    }
}
