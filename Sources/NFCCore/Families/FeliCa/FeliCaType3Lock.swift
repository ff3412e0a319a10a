/// Making a Type 3 Tag read-only (reference notes coreextendednfc.md §5.4; nfcpy `FelicaLite.protect`).
extension FeliCaType3 {
    /// Memory Configuration block of FeliCa Lite / Lite-S (user's manual §2.3.10): bytes 0–1 = write
    /// permission bit per S_PAD0–13 and REG (little-endian, 1 = writable), byte 2 = system blocks
    /// (FFh writable, 00h read-only).
    static let memoryConfigurationBlock = 0x88

    /// Sets RWFlag to 00h in the attribute block (checksum recomputed) and reads it back. Readers then
    /// treat the NDEF message as read-only; the bytes themselves stay writable, so this alone can be undone.
    ///
    /// With `permanently` (FeliCa Lite / Lite-S only) the MC block is rewritten too: S_PAD0–13 become
    /// read-only (REG stays writable) and the system blocks read-only. **This cannot be undone**: the
    /// chip never sets those bits again.
    ///
    /// An already read-only tag is left as it is (for `permanently`, the MC step still runs). Throws
    /// ``NFCError/verifyFailed(page:)`` (block number) when the read-back differs, the FeliCa read/write
    /// errors of the steps, and ``NFCError/unsupportedOperation(_:)`` for `permanently` on a card
    /// without an MC block.
    public static func lock(transport: any TagTransport, permanently: Bool = false) async throws {
        var attribute = try await readAttributeInfo(transport: transport)
        if attribute.rwFlag != 0x00 {
            attribute.rwFlag = 0x00
            try await FeliCaCommand.write(blocks: [0], data: [attribute.bytes], service: FeliCaCommand.ndefWriteService,
                                          transport: transport)
            guard try await readAttributeInfo(transport: transport).rwFlag == 0x00 else {
                throw NFCError.verifyFailed(page: 0)
            }
        }
        guard permanently else { return }
        let mc: [UInt8]
        do {
            mc = try await FeliCaCommand.read(blocks: [memoryConfigurationBlock], service: FeliCaCommand.ndefReadService,
                                              transport: transport)[0]
        } catch NFCError.felicaBlockReadFailed {
            throw NFCError.unsupportedOperation("Permanent locking needs a FeliCa Lite / Lite-S memory configuration block")
        }
        var locked = mc
        // Bit 14 (REG) stays writable as nfcpy leaves it; bits 0–13 (S_PAD0–13) cleared.
        locked[0] = 0x00
        locked[1] = mc[1] & 0x40
        locked[2] = 0x00
        try await FeliCaCommand.write(blocks: [memoryConfigurationBlock], data: [locked], service: FeliCaCommand.ndefWriteService,
                                      transport: transport)
        let readBack = try await FeliCaCommand.read(blocks: [memoryConfigurationBlock], service: FeliCaCommand.ndefReadService,
                                                    transport: transport)[0]
        guard Array(readBack.prefix(3)) == Array(locked.prefix(3)) else { throw NFCError.verifyFailed(page: memoryConfigurationBlock) }
    }
}
