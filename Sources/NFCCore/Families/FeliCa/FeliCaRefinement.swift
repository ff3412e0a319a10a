/// Splits FeliCa Lite from Lite-S. System code 88B4 (or a Lite-family IC type in PMm, for a tag polled
/// under 12FC) means the Lite family; reading block 90h (WCNT, service 000B, block list `80 90`)
/// succeeds only on a Lite-S (FeliCa Lite-S user's manual §2.3; spec "Identification Refinement").
public enum FeliCaRefinement {
    /// The Lite family's system code.
    public static let liteSystemCode: [UInt8] = [0x88, 0xB4]

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
        do {
            _ = try await FeliCaCommand.read(blocks: [0x90], service: FeliCaCommand.ndefReadService, transport: transport)
            info.probes.append("READ 90: ok")
            info.type = .felicaLiteS
        } catch {
            info.probes.append("READ 90: " + ((error as? NFCError)?.code ?? "failed"))
            // A tag that left the field proves nothing; keep what polling said.
            if let nfc = error as? NFCError, nfc == .tagRemoved { return (info, error) }
            if error.isNFCCancellation { return (info, error) }
            info.type = .felicaLite
        }
        return (info, nil)
    }
}
