/// libnfc MFD export for MIFARE Classic: the raw block image `nfc-mfclassic r|w` reads and writes.
extension TagDump {
    /// The dump as a libnfc MFD file: blocks 0 … N−1 of the product's layout, 16 bytes each, as
    /// `nfc-mfclassic` stores them (Mini 320, 1K 1024, Plus 2K 2048, 4K 4096 bytes). Trailers hold the
    /// keys the dump knows and the access bits read. Proxmark3 saves the same image as
    /// `hf-mf-<UID>-dump.bin`.
    ///
    /// An MFD has no way to say "unknown". In a trailer that was read, the parts the dump's
    /// ``ClassicTrailerGaps`` list (keys no dictionary key opened) are written as zeros, as
    /// `nfc-mfclassic` itself writes the key it did not use (the import reads zero keys back as
    /// unknown). Blocks never read are not written as zeros: a dump missing one (a sector no key
    /// opened) is refused with ``NFCError/partialDump(_:)`` naming it, unless `partial`, which writes
    /// the whole sectors before it and nothing after (a shorter file; docs/formats.md warns against
    /// writing it back).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps of other families;
    ///   ``NFCError/malformedDump(_:)`` when a block is not 16 bytes, lies outside the layout or appears
    ///   twice; ``NFCError/partialDump(_:)`` for a dump with blocks not read, without `partial`.
    public func exportClassicMFD(partial: Bool = false) throws -> [UInt8] {
        let image = try ClassicBlockImage(self, unsupportedMessage: "libnfc MFD export of blocks is available only for MIFARE Classic dumps.")
        return image.bytes(blockCount: try image.readBlockCount(partial: partial, format: "an MFD file"))
    }

    /// The dump as Proxmark3's `hf-mf-<UID>-dump.bin` (the block image of ``exportClassicMFD(partial:)``,
    /// which `hf mf restore` reads), refused or cut the same way for a dump with blocks not read.
    public func exportProxmark3ClassicDump(partial: Bool = false) throws -> [UInt8] {
        let image = try ClassicBlockImage(
            self, unsupportedMessage: "Proxmark3 hf mf dump export is available only for MIFARE Classic dumps.")
        return image.bytes(blockCount: try image.readBlockCount(partial: partial, format: "a Proxmark3 hf mf dump (.bin)"))
    }
}
