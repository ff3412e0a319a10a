/// Reads only a tag's NDEF message — the fast read a scan makes before any dump (`nfcbridge scan`, the
/// agent's `event/scanned`). Each family reads just the commands its NDEF mapping needs:
///
/// | family | how |
/// |---|---|
/// | Type 2 (Ultralight, NTAG) | READ page 3 (CC), then exactly the pages of the TLVs up to the end of the NDEF Message TLV, FAST_READ where the product has it (`Type2NDEFReader`) |
/// | Type 4 (Type 4 tags, DESFire, SmartMX) | SELECT the NDEF application, CC file, NDEF file (``Type4NDEF``) |
/// | FeliCa (Type 3) | attribute block, then the Ln bytes of NDEF data (``FeliCaType3``) |
/// | MIFARE Classic (and Plus in SL1) | MAD with the public key, then the NDEF sectors' blocks the TLVs need (``ClassicMAD``) |
/// | others | not read: ``NDEFReadResult/notRead(_:)`` |
///
/// Errors: a tag that left the field (``NFCError/tagRemoved``), a reader that went away
/// (``NFCError/readerUnavailable(_:)``) and cancellation are thrown — the scan cannot go on. Any other
/// trouble (a refused page, a failed authentication, a status word, a bad checksum or TLV) becomes
/// ``NDEFReadResult/unreadable(_:)``: the scan still reports the identification.
public enum NDEFReader {
    /// Reads the NDEF message of the tag `info` describes, as ``TagIdentifier/identify(_:)`` left it.
    /// `justIdentified`: `info` comes from the identification that ran just before on this transport,
    /// with nothing written since, so blocks it read already (a FeliCa Lite-S: the attribute block and
    /// the first NDEF blocks) are used instead of reading them again; otherwise the tag is read anew.
    public static func read(info: CardInfo, transport: some TagTransport, justIdentified: Bool = false) async throws
        -> NDEFReadResult
    {
        try Task.checkCancellation()
        var info = info
        if !justIdentified { info.feliCaIdentificationBlocks = [] }
        do {
            guard let family = TagFamilies.verbs(for: info.type) else {
                return .notRead(TagVerb.readNDEF.unsupported(for: info.type))
            }
            return try await family.readNDEF(info: info, transport: transport)
        } catch {
            if error.isNFCCancellation { throw error }
            guard let nfcError = error as? NFCError else { return .unreadable(.rfError(String(describing: error))) }
            if nfcError.endsTheSession { throw nfcError }
            return .unreadable(nfcError)
        }
    }
}
