/// Reads the NDEF message of an NFC Forum Type 4 Tag for a scan, on top of ``Type4NDEF``: the NDEF
/// detection procedure of T4T v2.0 §5.4.2 (SELECT the NDEF Tag Application, SELECT and read the CC file),
/// then the NDEF file (NLEN, then the message in MLe-sized READ BINARYs).
enum Type4NDEFReader {
    /// A card that refuses the NDEF application SELECT (a bank card, a DESFire without NDEF) holds no
    /// message; a refusal or a bad answer after that makes the message unreadable. Throws transport
    /// errors (``NFCError/tagRemoved``) and cancellation for ``NDEFReader`` to sort.
    static func read(transport: any APDUTransport) async throws -> NDEFReadResult {
        do {
            try await Type4NDEF.selectApplication(transport: transport)
        } catch NFCError.unexpectedStatusWord {
            return .noMessage
        }
        let cc = try await Type4NDEF.readCapabilityContainerFile(transport: transport)
        // T4T v2.0 §5.1.2.1: read access 00h = granted; 80h–FEh proprietary, the rest RFU.
        guard cc.readAccess == 0x00 else {
            return .unreadable(.unsupportedOperation(
                "The CC grants no read access to the NDEF file (read access \(cc.readAccess.hexString))"))
        }
        return .message(try await Type4NDEF.read(transport: transport, capabilityContainer: cc))
    }
}
