/// Splits FeliCa Lite from Lite-S. System code 88B4 (or a Lite-family IC type in PMm, for a tag polled
/// under 12FC) means the Lite family; reading block 90h (WCNT, service 000B, block list `80 90`)
/// succeeds only on a Lite-S (FeliCa Lite-S user's manual §2.3; spec "Identification Refinement").
///
/// The probe also asks for the attribute block 00h and the first NDEF blocks in the same Read Without
/// Encryption (``FeliCaLiteMemoryMap/blocksPerRead``: 90h, 00h, 01h, 02h): a Lite-S answers them all, and
/// the scan's NDEF read then needs no command of its own for a message of up to 32 bytes (issue 25;
/// ``CardInfo/feliCaIdentificationBlocks``). A Lite has no block 90h and refuses the list at its first
/// element (SF1 01h): that is the probe's answer. Any other refusal (a Lite-S whose user blocks need a
/// MAC-checked read) is settled by asking for block 90h alone, as before.
public enum FeliCaRefinement {
    /// The Lite family's system code.
    public static let liteSystemCode: [UInt8] = [0x88, 0xB4]
    /// WCNT, the Lite-S block the Lite lacks.
    static let probeBlock = 0x90

    /// Returns `info` with the type set to `.felicaLite` / `.felicaLiteS` where the probe says so and
    /// ``CardInfo/product`` from the PMm IC table. Never throws; the probe is recorded in
    /// ``CardInfo/probes`` ("READ 90: ok" or "READ 90: <error code>").
    public static func refine(_ info: CardInfo, transport: any TagTransport) async -> CardInfo {
        await run(info, transport: transport).info
    }

    /// ``refine(_:transport:)`` plus the error that ended the probe without an answer (the tag left,
    /// the task was cancelled), for ``TagIdentifier``.
    static func run(_ info: CardInfo, transport: any TagTransport) async -> (info: CardInfo, stop: (any Error)?) {
        guard info.type.family == .felica else { return (info, nil) }
        var info = info
        let pmm = info.pmm ?? transport.target.pmm
        let systemCode = info.systemCode ?? transport.target.systemCode
        if info.product == nil { info.product = FeliCaICTable.product(pmm: pmm) }
        guard systemCode == liteSystemCode || FeliCaICTable.isLiteFamily(pmm: pmm) else { return (info, nil) }
        let numbers = [probeBlock] + Array(0..<(FeliCaLiteMemoryMap.blocksPerRead - 1))
        do {
            let blocks = try await FeliCaCommand.read(blocks: numbers, service: FeliCaCommand.ndefReadService, transport: transport)
            info.probes.append("READ 90: ok")
            info.type = .felicaLiteS
            info.feliCaIdentificationBlocks = zip(numbers, blocks).dropFirst().map { Block(number: $0, data: $1) }
            return (info, nil)
        } catch NFCError.felicaBlockReadFailed(statusFlag: 0x01) {
            info.probes.append("READ 90: " + NFCError.felicaBlockReadFailed(statusFlag: 0x01).code)
            info.type = .felicaLite
            return (info, nil)
        } catch {
            if let stop = stop(error) { return (info, stop) }
        }
        do {
            _ = try await FeliCaCommand.read(blocks: [probeBlock], service: FeliCaCommand.ndefReadService, transport: transport)
            info.probes.append("READ 90: ok")
            info.type = .felicaLiteS
        } catch {
            info.probes.append("READ 90: " + ((error as? NFCError)?.code ?? "failed"))
            if let stop = stop(error) { return (info, stop) }
            info.type = .felicaLite
        }
        return (info, nil)
    }

    /// A tag that left the field, or a cancelled task, proves nothing: the probe stops, keeping what
    /// polling said.
    private static func stop(_ error: any Error) -> (any Error)? {
        if let nfc = error as? NFCError, nfc == .tagRemoved { return error }
        if error.isNFCCancellation { return error }
        return nil
    }
}
