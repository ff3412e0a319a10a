import NFCCore

/// The NTAG 424 DNA SUN check as the `trust` object carries it (`trust.sun`, docs/mqtt.md; docs/sun.md):
/// the verdict, the SDM read counter the message carries and the name of the key set that judged it.
package struct SUNTrust: Sendable, Equatable, Encodable {
    /// `valid`, `invalid_mac`, `replayed`, `no_key`, `malformed` or `not_fresh` (``SUNResult/Verdict``).
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

    /// The reason a SUN verdict other than `valid` refuses the tap: `sun_` + the verdict
    /// (`sun_invalid_mac`, `sun_replayed`, `sun_no_key`, `sun_malformed`, `sun_not_fresh`; docs/sun.md).
    package var refusal: TrustReason? {
        guard let message = Self.refusals[verdict] else { return nil }
        return TrustReason(code: "sun_" + verdict.rawValue, message: message)
    }

    /// What each refusing verdict means, for people.
    static let refusals: [SUNResult.Verdict: String] = [
        .invalidMAC: "the NTAG 424 DNA SUN message's SDMMAC does not verify with the configured keys",
        .replayed: "the SUN message's read counter is not above the last one seen for this tag: a replay",
        .noKey: "no ntag424_sdm key in auth.keys_file to check the SUN message with",
        .malformed: "the SUN message is not where the tag's SDM settings say, or does not decrypt",
        .notFresh: "the SUN message verifies but mirrors no UID or no read counter: a copy cannot be told from the tag",
    ]
}

extension TrustReason {
    /// `access.credential: sun` and the tap gave no SUN message that verified: not an NTAG 424 DNA with
    /// SDM on (a factory-fresh one, a plain Type 4 tag, a phone), or its settings could not be read.
    package static let sunMissing = TrustReason(
        code: "sun_missing",
        message: "access.credential is sun and this tag gave no SUN message (not an NTAG 424 DNA with SDM on, or its settings could not be read)")
}
