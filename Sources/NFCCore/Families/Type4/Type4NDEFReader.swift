/// Reads the NDEF message of an NFC Forum Type 4 Tag for a scan, on top of ``Type4NDEF``: the NDEF
/// detection procedure of T4T v2.0 §5.4.2 (SELECT the NDEF Tag Application, SELECT and read the CC file),
/// then the NDEF file (NLEN, then the message in MLe-sized READ BINARYs).
enum Type4NDEFReader {
    /// A card that refuses the NDEF application SELECT (a bank card, a DESFire without NDEF) holds no
    /// message; a refusal or a bad answer after that makes the message unreadable. Throws transport
    /// errors (``NFCError/tagRemoved``) and cancellation for ``NDEFReader`` to sort.
    ///
    /// `selected`: the CC identification read and left selected (``CardInfo/type4Selection``): the
    /// detection procedure is not sent again; when the NDEF file SELECT is refused (the selection
    /// changed since), the whole procedure runs.
    static func read(transport: any APDUTransport, selected: Type4CapabilityContainer? = nil) async throws -> NDEFReadResult {
        let cc: Type4CapabilityContainer
        if let selected {
            cc = selected
        } else {
            do {
                try await Type4NDEF.selectApplication(transport: transport)
            } catch NFCError.unexpectedStatusWord {
                return .noMessage
            }
            cc = try await Type4NDEF.readCapabilityContainerFile(transport: transport)
        }
        // T4T v2.0 §5.1.2.1: read access 00h = granted; 80h–FEh proprietary, the rest RFU.
        guard cc.readAccess == 0x00 else {
            return .unreadable(.unsupportedOperation(
                "The CC grants no read access to the NDEF file (read access \(cc.readAccess.hexString))"))
        }
        do {
            try await transport.send(.selectFile(id: cc.ndefFileID)).requireSuccess()
        } catch NFCError.unexpectedStatusWord where selected != nil {
            return try await read(transport: transport)
        }
        return .message(try await Type4NDEF.read(transport: transport, capabilityContainer: cc, fileSelected: true))
    }
}
