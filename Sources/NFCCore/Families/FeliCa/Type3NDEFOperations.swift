/// Write and lock on NFC Forum Type 3 tags (FeliCa), on top of ``FeliCaType3``: the same reports and
/// error shape as Type 2, with blocks where Type 2 has pages.
///
/// The write is ``FeliCaType3/writeNDEF(_:transport:)`` (RWFlag and capacity checked before the first
/// WRITE, attribute block with WriteFlag 0Fh, data blocks, attribute block with the new Ln), then the
/// attribute block and the message are read back: a different Ln or WriteFlag is
/// ``NFCError/verifyFailed(page:)`` with block 0, different data the first differing data block.
enum Type3NDEFOperations {
    static func write(_ message: [UInt8], to transport: any TagTransport, info: CardInfo)
        async throws(TagOperationError) -> WriteReport
    {
        let recorder = FeliCaWriteRecorder(transport)
        do {
            try await FeliCaType3.writeNDEF(message, transport: recorder)
            let attribute = try await FeliCaType3.readAttributeInfo(transport: recorder)
            guard attribute.length == message.count, attribute.writeFlag == 0x00 else {
                throw NFCError.verifyFailed(page: 0)
            }
            let readBack = try await FeliCaType3.readNDEF(transport: recorder)
            if let index = readBack.firstDifference(from: message) { throw NFCError.verifyFailed(page: 1 + index / 16) }
            return WriteReport(uid: info.uid, cardType: info.type, messageLength: message.count,
                               bytesWritten: recorder.blockWrites * 16, pagesWritten: recorder.blocksWritten,
                               capabilityContainer: attribute.bytes)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: recorder.blocksWritten)
        }
    }

    /// RWFlag := 00h with the checksum recomputed (``FeliCaType3/lock(transport:permanently:)``), read
    /// back. This is the NFC Forum read-only state; the FeliCa Lite/Lite-S memory configuration is not
    /// touched.
    static func lock(_ transport: any TagTransport, info: CardInfo) async throws(TagOperationError) -> LockReport {
        let recorder = FeliCaWriteRecorder(transport)
        do {
            try await FeliCaType3.lock(transport: recorder)
            let attribute = try await FeliCaType3.readAttributeInfo(transport: recorder)
            guard attribute.rwFlag == 0x00 else { throw NFCError.verifyFailed(page: 0) }
            return LockReport(uid: info.uid, cardType: info.type, pagesWritten: recorder.blocksWritten,
                              capabilityContainer: attribute.bytes, lockBytes: [])
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: recorder.blocksWritten)
        }
    }
}
