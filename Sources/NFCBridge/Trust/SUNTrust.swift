import NFCCore

/// The NTAG 424 DNA SUN check as the `trust` object carries it (`trust.sun`, docs/mqtt.md; docs/sun.md):
/// the verdict, the SDM read counter the message carries and the name of the key set that judged it.
package struct SUNTrust: Sendable, Equatable, Encodable {
    /// `valid`, `invalid_mac`, `replayed`, `no_key` or `malformed` (``SUNResult/Verdict``).
    package var verdict: SUNResult.Verdict
    /// SDMReadCtr, when the message carries it readably.
    package var counter: Int?
    /// The `ntag424_sdm` key set's name (never a key).
    package var keys: String?

    /// The member for `check`.
    package init(_ check: SUNCheck) {
        verdict = check.result.verdict
        counter = check.result.counter
        keys = check.keySet
    }

    enum CodingKeys: String, CodingKey { case verdict, counter, keys }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verdict.rawValue, forKey: .verdict)
        try container.encodeIfPresent(counter, forKey: .counter)
        try container.encodeIfPresent(keys, forKey: .keys)
    }

    /// The reason a SUN verdict other than `valid` refuses the tap.
    package var refusal: TrustReason? {
        switch verdict {
        case .valid: nil
        case .invalidMAC: .sunInvalidMAC
        case .replayed: .sunReplayed
        case .noKey: .sunNoKey
        case .malformed: .sunMalformed
        }
    }
}

extension TrustReason {
    /// The SUN message's SDMMAC does not verify: forged, altered, or another key.
    package static let sunInvalidMAC = TrustReason(
        code: "sun_invalid_mac", message: "the NTAG 424 DNA SUN message's SDMMAC does not verify with the configured keys")
    /// A valid SUN message whose read counter is not above the last one seen for the UID.
    package static let sunReplayed = TrustReason(
        code: "sun_replayed", message: "the SUN message's read counter is not above the last one seen for this tag: a replay")
    /// No `ntag424_sdm` key to check the SUN message with.
    package static let sunNoKey = TrustReason(
        code: "sun_no_key", message: "no ntag424_sdm key in auth.keys_file to check the SUN message with")
    /// The NDEF file holds no readable SUN message where its SDM settings say.
    package static let sunMalformed = TrustReason(
        code: "sun_malformed", message: "the SUN message is not where the tag's SDM settings say, or does not decrypt")
}
