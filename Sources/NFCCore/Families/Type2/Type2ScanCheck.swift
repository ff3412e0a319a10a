/// The Type 2 contradictions ``ScanCheck`` looks for.
///
/// | result | contradicted by | why |
/// | --- | --- | --- |
/// | a row without GET_VERSION (MF0ICU1, MF0ICU2, NTAG203) | a CC whose data area is larger than that row's user memory | NFC Forum T2T §6.1: the CC's byte 2 is the data area size / 8, written at format time for the tag's own memory; a lost GET_VERSION answer turns an NTAG215 (CC `E1 10 3E 00`, 496 bytes) into an Ultralight C (144 bytes) |
/// | `auth_required` | the AUTH0 byte saying protection is off | NTAG213/215/216 §8.8.1, MF0ULX1 §8.8: AUTH0 past the last page (PWD_AUTH) disables protection, MF0ICU2 §7.5.8: AUTH0 ≥ 30h (3DES); a lost READ answer looks like the NAK of a protected page |
enum Type2ScanCheck {
    static func doubt(info: CardInfo, ndef: NDEFReadResult, transport: some TagTransport) async throws -> String? {
        guard let memory = try? Type2Memory(transport: transport, info: info) else { return nil }
        if info.version == nil, let reason = try await capabilityContainerDoubt(memory) { return reason }
        if ndef == .unreadable(.authenticationRequired), let reason = try await auth0Doubt(memory) { return reason }
        return nil
    }

    /// A row without GET_VERSION whose CC claims more memory than the row has.
    private static func capabilityContainerDoubt(_ memory: Type2Memory) async throws -> String? {
        let cc: Type2CapabilityContainer
        do {
            cc = try await memory.capabilityContainer()
        } catch let error as NFCError {
            // Page 3 is never protected: a READ 3 that failed on the link decides nothing.
            return ScanCheck.mayBeTransient(error) ? "the CC could not be read (\(error.code))" : nil
        }
        guard cc.isNDEF, cc.dataAreaSize > memory.map.userBytes else { return nil }
        return "no GET_VERSION, but the CC's data area (\(cc.dataAreaSize) bytes) is larger than the"
            + " \(memory.product.name)'s user memory (\(memory.map.userBytes) bytes)"
    }

    /// `auth_required`, but the AUTH0 page says protection is off (or could not be read at all).
    private static func auth0Doubt(_ memory: Type2Memory) async throws -> String? {
        guard let offset = memory.map.auth0Offset else { return "auth_required on a product without a password" }
        let content: [UInt8]
        do {
            content = try await memory.page(offset / 4)
        } catch NFCError.authenticationRequired {
            // The AUTH0 page is read-protected itself: the protection is real.
            return nil
        } catch let error as NFCError {
            return "the AUTH0 page could not be read (\(error.code))"
        }
        guard memory.map.firstWriteProtectedPage(auth0PageContent: content) == nil else { return nil }
        return "auth_required, but AUTH0 (page \(offset / 4)) says protection is off"
    }
}
