/// Reads the NDEF message of a FeliCa card (NFC Forum Type 3 Tag) for a scan, on top of ``FeliCaType3``:
/// the attribute information block, then the Ln bytes of NDEF data it announces, Nbr blocks a READ
/// (T3T §7.3 NDEF detection and read).
enum FeliCaNDEFReader {
    /// A card that refuses block 0 of service 000Bh (no NDEF service: a transit or payment card) or
    /// whose attribute block is blank (mapping version 0: a Lite-S never formatted) holds no message; a
    /// bad checksum, an unsupported version, an interrupted write or a refused data block makes the message
    /// unreadable. Throws transport errors (``NFCError/tagRemoved``) and cancellation for ``NDEFReader``.
    /// `known`: blocks of the NDEF area read already (by identification, ``FeliCaRefinement``), not read again.
    static func read(transport: some TagTransport, known: [Block] = []) async throws -> NDEFReadResult {
        let attribute: FeliCaAttributeInfo
        do {
            if let block = known.first(where: { $0.number == 0 }) {
                attribute = try FeliCaAttributeInfo(bytes: block.data)
            } else {
                attribute = try await FeliCaType3.readAttributeInfo(transport: transport)
            }
        } catch NFCError.felicaBlockReadFailed {
            return .noMessage
        }
        guard attribute.version >> 4 != 0 else { return .noMessage }
        return .message(try await FeliCaType3.readNDEFBlocks(attribute: attribute, transport: transport, known: known).message)
    }
}
