/// Formats a Type 2 tag for NDEF: an empty NDEF message (`03 00 FE`) at the start of the data area and a
/// capability container that announces it.
///
/// Page 3 (the CC) is one-time programmable: a WRITE ORs bits in, and no bit ever clears (MF0ICU1
/// §8.5.3, NTAG213/215/216 §8.5.4). So the CC is read first:
/// - a usable NDEF CC (E1h, version 1.x, free access, a data area within the user memory) is kept as it
///   is, and so is every TLV in front of the old message (Lock/Memory Control, Proprietary, reserved
///   types: the empty message goes where the NDEF read found the old one, ``Type2NDEFWriter``);
/// - a blank CC (`00 00 00 00`), or any CC whose set bits are all set in the wanted one, becomes the
///   product's CC (the factory CC of the row ``Type2Memory`` found, ``Type2Product/factoryCapabilityContainer``), written after the empty message so a torn format never
///   shows a CC over old data;
/// - a read-only NDEF CC (write access ≠ 0h) gives ``NFCError/tagLocked``; any other CC cannot be turned
///   into the wanted one by setting bits: ``NFCError/unsupportedOperation(_:)``, nothing written.
public enum Type2Format {
    /// The CC a format writes on a blank tag of `type`: its base product row's factory CC
    /// (``Type2Product/factoryCapabilityContainer``). Nil for types that are not Type 2.
    public static func capabilityContainer(for type: CardType) -> Type2CapabilityContainer? {
        Type2Product.forType(type)?.factoryCapabilityContainer
    }

    /// Formats the tag `info` describes. Returns the report of the empty-message write; its
    /// ``WriteReport/capabilityContainer`` is the CC now on the tag.
    public static func format(_ transport: any TagTransport, info: CardInfo, password: [UInt8]? = nil)
        async throws(TagOperationError) -> WriteReport
    {
        let session: Type2Memory
        do { session = try Type2Memory(transport: transport, info: info) } catch { throw TagOperationError(error) }
        do {
            try await session.open(password: password)
            let current = try await session.capabilityContainer()
            let target = try plan(current: current, product: session.product)
            if target != current {
                // Fail before the first WRITE when the CC page is locked or behind AUTH0.
                try await session.requireWriteAccess(to: [3])
                try await session.requireUnlocked([3])
            }
            let keepControlTLVs = target == current
            var pages = try await Type2NDEFWriter.writeTLV(message: [], session: session, capabilityContainer: target,
                                                           keepControlTLVs: keepControlTLVs)
            if target != current {
                try await session.write(page: 3, data: target.bytes)
                try await session.verify([3: target.bytes])
                pages.append(3)
            }
            return WriteReport(uid: info.uid, cardType: info.type, messageLength: 0,
                               bytesWritten: session.writeCount * 4, pagesWritten: pages,
                               capabilityContainer: target.bytes)
        } catch {
            throw TagOperationError(wrapping: error, pagesWritten: session.pagesWritten)
        }
    }

    /// The CC the tag should end up with, given its `current` one.
    static func plan(current: Type2CapabilityContainer, product: Type2Product) throws(NFCError)
        -> Type2CapabilityContainer
    {
        if current.isUsableNDEF(maxDataAreaSize: product.map.userBytes) { return current }
        let wanted = product.factoryCapabilityContainer
        if current.isNDEF, !current.isWritable { throw .tagLocked }
        guard current.canBecome(wanted) else {
            throw .unsupportedOperation(
                "The capability container \(current) cannot become \(wanted): page 3 is one-time programmable "
                    + "and a write can only set bits")
        }
        return wanted
    }
}
