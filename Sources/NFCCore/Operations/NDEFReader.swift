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
    /// How a card type's NDEF is read.
    enum Route: Equatable {
        case type2, type3, type4, classic
    }

    /// The route of `type`: the NDEF mapping of its family (``NDEFMapping``), else the MIFARE Classic
    /// mapping for types with a Classic sector layout; nil when NDEF is not read from it.
    static func route(for type: CardType) -> Route? {
        switch NDEFMapping.forType(type) {
        case .type2: .type2
        case .type3: .type3
        case .type4: .type4
        case nil: ClassicLayout.forType(type) != nil ? .classic : nil
        }
    }

    /// Reads the NDEF message of the tag `info` describes, as ``TagIdentifier/identify(_:)`` left it.
    public static func read(info: CardInfo, transport: some TagTransport) async throws -> NDEFReadResult {
        try Task.checkCancellation()
        do {
            switch route(for: info.type) {
            case .type2:
                return try await Type2NDEFReader.read(info: info, transport: transport)
            case .type3:
                return try await FeliCaNDEFReader.read(transport: transport)
            case .type4:
                guard let apdu = transport as? any APDUTransport else {
                    return .notRead(.unsupportedOperation("This reader cannot exchange ISO 7816 APDUs"))
                }
                return try await Type4NDEFReader.read(transport: apdu)
            case .classic:
                guard let classic = transport as? any ClassicAuthenticating else {
                    return .notRead(.unsupportedOperation("This reader cannot authenticate MIFARE Classic sectors"))
                }
                return try await ClassicNDEFReader.read(info: info, transport: classic)
            case nil:
                return .notRead(.unsupportedOperation("NDEF is not read from \(info.type.description) tags"))
            }
        } catch {
            if error.isNFCCancellation { throw error }
            guard let nfcError = error as? NFCError else { return .unreadable(.rfError(String(describing: error))) }
            switch nfcError {
            case .tagRemoved, .readerUnavailable: throw nfcError
            default: return .unreadable(nfcError)
            }
        }
    }
}
