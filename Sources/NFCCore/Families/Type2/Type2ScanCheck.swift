/// The Type 2 contradictions ``ScanCheck`` looks for.
///
/// | result | contradicted by | why |
/// | --- | --- | --- |
/// | a row without GET_VERSION (MF0ICU1, MF0ICU2, NTAG203) | a CC whose data area is larger than that row's user memory | NFC Forum T2T §6.1: the CC's byte 2 is the data area size / 8, written at format time for the tag's own memory; a lost GET_VERSION answer turns an NTAG215 (CC `E1 10 3E 00`, 496 bytes) into an Ultralight C (144 bytes) |
/// | a row without GET_VERSION | a READ of the CC refused, though the NDEF read just read it | the CC must be read to be compared; a lost READ answer on a product with a password is reported as a refused page (`auth_required`, see ``Type2Memory``), and page 3 is read-protected only when the NDEF read, whose first READ is page 3, is refused too (MF0ICU2 §7.5.8: AUTH0 from 03h) |
/// | `auth_required` | the AUTH0 page answering | NTAG213/215/216 §8.8.1, MF0ULX1 §8.8.1: PROT protects reads from AUTH0 to the last page, the configuration pages holding AUTH0 among them; MF0ICU2 §7.5.8: AUTH1 bit 0 = 0 protects reads from AUTH0 to 2Fh, AUTH0's page 2Ah among them. So a readable AUTH0 page means the user memory below it is readable (AUTH0 past it, or write protection only) — a lost READ answer looks like the NAK of a protected page |
enum Type2ScanCheck {
    static func doubt(info: CardInfo, ndef: NDEFReadResult, transport: some TagTransport) async throws -> String? {
        guard let memory = try? Type2Memory(transport: transport, info: info) else { return nil }
        if info.version == nil, let reason = try await capabilityContainerDoubt(memory, ndef: ndef) { return reason }
        if ndef == .unreadable(.authenticationRequired), let reason = try await auth0Doubt(memory) { return reason }
        return nil
    }

    /// A row without GET_VERSION whose CC claims more memory than the row has, or whose CC could not be
    /// read for the comparison.
    private static func capabilityContainerDoubt(_ memory: Type2Memory, ndef: NDEFReadResult) async throws -> String? {
        let cc: Type2CapabilityContainer
        do {
            cc = try await memory.capabilityContainer()
        } catch NFCError.authenticationRequired {
            // The NDEF read refused too: the tag may protect page 3 (AUTH0 = 03h); ``auth0Doubt(_:)`` decides.
            if ndef == .unreadable(.authenticationRequired) { return nil }
            return "the CC could not be read (auth_required), though the NDEF read read it"
        } catch let error as NFCError {
            // A READ 3 that failed on the link decides nothing.
            return ScanCheck.mayBeTransient(error) ? "the CC could not be read (\(error.code))" : nil
        }
        guard cc.isNDEF, cc.dataAreaSize > memory.map.userBytes else { return nil }
        return "no GET_VERSION, but the CC's data area (\(cc.dataAreaSize) bytes) is larger than the"
            + " \(memory.product.name)'s user memory (\(memory.map.userBytes) bytes)"
    }

    /// `auth_required`, but the AUTH0 page answers (or could not be read at all).
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
        let protectedFrom = memory.map.firstWriteProtectedPage(auth0PageContent: content)
        return "auth_required, but the AUTH0 page (\(offset / 4)) answered, AUTH0 "
            + (protectedFrom.map { "\($0): reads, if protected, would be refused from there" } ?? "saying protection is off")
    }
}
