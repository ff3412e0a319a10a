/// libnfc MFD export for MIFARE Classic: the raw block image `nfc-mfclassic r|w` reads and writes.
extension TagDump {
    /// The dump as a libnfc MFD file: blocks 0 … N−1 of the product's layout, 16 bytes each, as
    /// `nfc-mfclassic` stores them (Mini 320, 1K 1024, Plus 2K 2048, 4K 4096 bytes). Trailers hold the
    /// keys the dump knows and the access bits read.
    ///
    /// An MFD has no way to say "unknown": blocks missing from the dump (unread sectors) and the
    /// trailer parts its ``ClassicTrailerGaps`` list (keys no dictionary key opened) are written as
    /// zeros, as `nfc-mfclassic` itself writes the key it did not use. An all-zero trailer has invalid
    /// access bits (the inverted copies disagree, MF1S50yyX §8.7.1), so such a file must not be
    /// written back to a card without filling those sectors in (docs/formats.md).
    /// - Throws: ``NFCError/unsupportedOperation(_:)`` for dumps of other families;
    ///   ``NFCError/malformedDump(_:)`` when a block is not 16 bytes, lies outside the layout or appears
    ///   twice, or the gap facts are not sector lists.
    public func exportClassicMFD() throws -> [UInt8] {
        let image = try ClassicBlockImage(self, unsupportedMessage: "libnfc MFD export of blocks is available only for MIFARE Classic dumps.")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(image.layout.totalBytes)
        for number in 0..<image.layout.totalBlocks {
            bytes += image.knownBytes(number).map { $0 ?? 0 }
        }
        return bytes
    }
}
