/// Reads only the NDEF message of a Type 2 tag, with as few commands as its TLVs allow — what a scan
/// needs, where ``Type2Dump`` reads the whole memory.
///
/// NFC Forum T2T §6.4.1 (NDEF detection) and §6.4.2 (NDEF read): READ page 3 gives the capability
/// container and pages 4–6; no E1h magic number means no NDEF. Then ``NFCForumTLV/walk(memory:start:end:controlTLVs:)``
/// walks NULL, Lock Control, Memory Control and Proprietary TLVs and asks for exactly the pages up to the
/// last byte of the NDEF Message TLV, which come with FAST_READ where the product has it (at most
/// ``Type2Dump/maxFastReadPages`` a frame), with READ otherwise. The data area ends where the CC says,
/// never past the product's user memory (as ``Type2NDEFWriter`` writes it).
///
/// Pages come through ``Type2Memory``, the family's one page reader. Read protection: FAST_READ of a
/// range reaching a protected page is refused as a whole, which is why only the pages the walk needs are
/// asked for (a READ brings four pages anyway); the READ roll-over rule at AUTH0 is ``Type2Memory``'s. A
/// refused page ends the read with ``NDEFReadResult/unreadable(_:)`` (``NFCError/authenticationRequired``
/// on products with a password, ``NFCError/commandRefused(command:nak:)`` otherwise) after re-selecting
/// the tag — the same page and error a write of that tag stops with.
enum Type2NDEFReader {
    /// Reads the NDEF message of the Type 2 tag `info` describes (ACTIVE, as identification left it).
    /// Throws ``NFCError/tagRemoved`` when the tag is gone and `CancellationError` when cancelled; other
    /// trouble is an ``NDEFReadResult/unreadable(_:)`` result.
    static func read(info: CardInfo, transport: some TagTransport) async throws -> NDEFReadResult {
        guard let memory = try? Type2Memory(transport: transport, info: info) else {
            return .notRead(.unsupportedOperation("\(info.type) is not a Type 2 tag"))
        }
        let map = memory.map

        // READ 3 answers pages 3–6: the CC and the first 12 bytes of the data area (those the roll-over
        // rule trusts).
        if let failure = try await fetch([3], from: memory, fastRead: false) {
            return .unreadable(failure)
        }
        guard let cc = Type2CapabilityContainer(bytes: memory.known[3] ?? []) else { return .unreadable(.invalidResponse([])) }
        guard cc.isNDEF else { return .noMessage }
        guard cc.majorVersion == 1 else {
            return .unreadable(.unsupportedOperation("Type 2 mapping version \(cc.majorVersion).x (CC \(cc)) is not supported"))
        }
        guard cc.readAccess == 0 else {
            return .unreadable(.unsupportedOperation("The CC (\(cc)) grants no read access to the NDEF data"))
        }
        let end = NFCForumTLV.dataAreaOffset + min(cc.dataAreaSize, map.userBytes)
        let walk: NFCForumTLV.Walk
        do {
            walk = try await memory.scanTLVs(end: end).outcome
        } catch let error as NFCError where error != .tagRemoved {
            return .unreadable(error)
        }
        return NDEFReadResult(walk: walk, area: "the data area of \(end - NFCForumTLV.dataAreaOffset) bytes")
            ?? .unreadable(.invalidResponse([]))
    }

    /// Reads `pages` through `memory`; returns why one could not be read (the error the write and the
    /// dump of the same tag meet), nil when all were. Removal and cancellation are thrown.
    private static func fetch(_ pages: [Int], from memory: Type2Memory, fastRead: Bool) async throws -> NFCError? {
        do {
            try await memory.read(pages, fastRead: fastRead)
            return nil
        } catch let error as NFCError where error != .tagRemoved {
            return error
        }
    }
}
