/// Refines ISO-DEP cards (SAK 20, 28, 38) that the ATQA/SAK table could only call `.smartMX`, and
/// ISO 14443-4 B cards (`.iso14443B_generic`, through ``ISO14443BFamily``) the same way:
/// probes for a DESFire-style GET_VERSION, an NFC Forum Type 4 Tag and an eMRTD, with upstream's rule of
/// which answer wins (reference notes coreextendednfc.md §2.4 step 3b), sending only the probes that can
/// change it. A card identified as plain `.mifareDesfire` is
/// version-probed, to learn EV1/EV2/EV3; one that answers GET_VERSION with an ISO status word is no
/// DESFire, and becomes a Type 4 tag when its CC reads, else `.smartMX`.
public enum ISODEPRefinement {
    /// eMRTD LDS application (ICAO 9303-10): SELECT with P2 0C, no Le.
    static let emrtdSelect = CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01])

    /// Returns `info` refined, with every probe and its outcome appended to ``CardInfo/probes``.
    /// Never throws: a failed probe leaves the type as it was.
    ///
    /// Which answer wins (upstream's rule): a readable Type 4 CC (→ `.type4NDEF`), else a GET_VERSION
    /// that names a DESFire / Plus / NTAG 4xx product, else an eMRTD SELECT success (only as the last
    /// word, because some ISO 7816 cards accept any SELECT). A Type 4 tag also gets GET_VERSION, only to
    /// fill ``CardInfo/product`` (an NTAG 424 DNA, a DESFire with NDEF).
    ///
    /// The order sends no probe whose answer cannot change the outcome (issue 25): GET_VERSION first
    /// (one APDU on a card that is no DESFire), then the CC — the NFC Forum Type 4 detection procedure
    /// (T4T v2.0 §5.4.2: SELECT the NDEF Tag Application, SELECT the CC file, READ BINARY), which is
    /// left selected for the NDEF read that follows (``CardInfo/type4Selection``) — and the eMRTD SELECT
    /// only when neither answered.
    public static func refine(_ info: CardInfo, transport: any TagTransport) async -> CardInfo {
        await run(info, transport: transport).info
    }

    /// ``refine(_:transport:)`` plus the error that ended probing early (the tag left, the task was
    /// cancelled), so ``TagIdentifier`` can report it instead of a half-probed card.
    static func run(_ info: CardInfo, transport: any TagTransport) async -> (info: CardInfo, stop: (any Error)?) {
        guard let transport = transport as? any APDUTransport else { return (info, nil) }
        var info = info
        switch info.type {
        case .smartMX, .iso14443B_generic:
            let version = await probe("DESFire GET_VERSION", into: &info) {
                try await DESFireVersion.read(transport: transport)
            }
            if let stop = version.stop { return (info, stop) }
            let cc = await probe("Type 4 CC", into: &info) {
                try await Type4NDEF.readCapabilityContainer(transport: transport)
            }
            if let stop = cc.stop { return (info, stop) }
            if let capabilityContainer = cc.value {
                apply(version.value, to: &info, keepingType: true)
                // A Type 4 tag; an NTAG 424 DNA is one with its own family (``NTAG424Family``).
                info.type = version.value?.product?.cardType == .ntag424DNA ? .ntag424DNA : .type4NDEF
                info.type4Selection = capabilityContainer
            } else if version.value?.product != nil {
                apply(version.value, to: &info, keepingType: false)
            } else {
                let emrtd = await probe("SELECT eMRTD", into: &info) {
                    try await transport.send(emrtdSelect).requireSuccess()
                }
                if let stop = emrtd.stop { return (info, stop) }
                if emrtd.value != nil { info.type = .ePassport }
            }
        case .mifareDesfire:
            let version = await probe("DESFire GET_VERSION", into: &info) {
                try await DESFireVersion.read(transport: transport)
            }
            if let stop = version.stop { return (info, stop) }
            apply(version.value, to: &info, keepingType: false)
            // ATQA 0344 / SAK 20 is not DESFire's alone: every DESFire answers a wrapped command with
            // 91 xx (EV1 datasheet §9.2; MF2DL(H)x0, NT4H2421Gx §10.3), so an ISO status word (6D00,
            // 6E00) says this is another ISO-DEP card. A readable Type 4 CC makes it a Type 4 tag.
            if case .unexpectedStatusWord? = version.failure {
                let cc = await probe("Type 4 CC", into: &info) {
                    try await Type4NDEF.readCapabilityContainer(transport: transport)
                }
                if let stop = cc.stop { return (info, stop) }
                info.type = cc.value != nil ? .type4NDEF : .smartMX
                info.type4Selection = cc.value
            }
        default:
            break
        }
        return (info, nil)
    }

    /// Fills product and version from a GET_VERSION answer that names a product (and the type too,
    /// unless `keepingType`).
    static func apply(_ version: DESFireVersion?, to info: inout CardInfo, keepingType: Bool) {
        guard let version, let product = version.product else { return }
        if !keepingType { info.type = product.cardType }
        info.product = Product(product)
        info.version = version.bytes
    }

    /// The outcome of one probe.
    struct Outcome<Value> {
        var value: Value?
        /// Set when the tag left or the task was cancelled: stop probing.
        var stop: (any Error)?
        /// The error the probe ended with, when it failed.
        var failure: NFCError?
    }

    /// Runs one probe and records "name: ok" or "name: <status word | error code>".
    static func probe<Value>(_ name: String, into info: inout CardInfo, _ body: () async throws -> Value) async -> Outcome<Value> {
        do {
            let value = try await body()
            info.probes.append("\(name): ok")
            return Outcome(value: value)
        } catch let error as NFCError {
            switch error {
            case let .unexpectedStatusWord(sw1, sw2): info.probes.append("\(name): \([sw1, sw2].hexString)")
            case let .desfireError(status): info.probes.append("\(name): 91\(status.hexString)")
            default: info.probes.append("\(name): \(error.code)")
            }
            return Outcome(stop: error == .tagRemoved || error == .userCanceled ? error : nil, failure: error)
        } catch {
            info.probes.append("\(name): \(error.isNFCCancellation ? "canceled" : "failed")")
            return Outcome(stop: error.isNFCCancellation ? error : nil)
        }
    }
}
