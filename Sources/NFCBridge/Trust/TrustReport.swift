import NFCCore

/// The `trust` object of `event/scanned` (docs/mqtt.md, "trust"; docs/access-control.md): whether a
/// door may open for this tap, and why.
///
/// Each check adds its own member and, when it fails, a ``TrustReason`` through ``refuse(_:)``: the
/// originality signature (``signature``), the clone probes (``cloneProbes``), the credential
/// (``credential``). Further checks (DESFire authentication, NTAG 424 SUN) add an optional member
/// of their own, a line in ``CodingKeys`` and one in ``encode(to:)``; the verdict needs no change:
/// it is ``TrustVerdict/trusted`` exactly when no check refused the tap.
package struct TrustReport: Sendable, Equatable, Encodable {
    /// The originality signature check; nil when `access.signature` is `ignore`.
    package var signature: SignatureTrust?
    /// The clone probes that fired (their names, e.g. `gen1a_backdoor`), in probe table order; empty when none did.
    package var cloneProbes: [String] = []
    /// Where the credential came from (`access.credential`); published as its kind: `uid`, `ndef`,
    /// `desfire`, `sun`.
    package var credentialSource: CredentialSource
    /// The credential, uppercase hex, or its SHA-256 (hex) with `access.credential_hash: true`; nil
    /// when it could not be read (then ``reasons`` says why).
    package var credential: String?
    /// Whether ``credential`` is a SHA-256 of the credential rather than the credential.
    package var credentialHashed = false
    /// What keys of `auth.keys_file` opened for this tap (key names, applications, files; never a key),
    /// nil when no key was tried.
    package var authenticated: [AuthenticatedRead]?
    /// The NTAG 424 DNA SUN check (docs/sun.md); nil for other tags.
    package var sun: SUNTrust?
    /// Why the tap is not trusted, in the order the checks found it; empty for a trusted tap.
    package private(set) var reasons: [TrustReason] = []

    /// A report with nothing checked yet: the credential's source and whether it is hashed.
    package init(credentialSource: CredentialSource, credentialHashed: Bool = false) {
        self.credentialSource = credentialSource
        self.credentialHashed = credentialHashed
    }

    /// `trusted` when no check refused the tap, else `untrusted`.
    package var verdict: TrustVerdict { reasons.isEmpty ? .trusted : .untrusted }

    /// The first reason the tap is not trusted (what `reason` carries); nil for a trusted tap.
    package var reason: TrustReason? { reasons.first }

    /// Records that a check refused the tap. The first reason is the one published as `reason`; all
    /// are kept in `reasons` (each reason once).
    package mutating func refuse(_ reason: TrustReason) {
        if !reasons.contains(reason) { reasons.append(reason) }
    }

    enum CodingKeys: String, CodingKey {
        case verdict, reason, reasons, signature, cloneProbes = "clone_probes"
        case credentialSource = "credential_source", credential, credentialHashed = "credential_hashed", sun
        case authenticated
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verdict, forKey: .verdict)
        try container.encodeIfPresent(reason?.code, forKey: .reason)
        try container.encode(reasons.map(\.code), forKey: .reasons)
        try container.encodeIfPresent(signature, forKey: .signature)
        try container.encode(cloneProbes, forKey: .cloneProbes)
        try container.encode(credentialSource.kind, forKey: .credentialSource)
        try container.encodeIfPresent(credential, forKey: .credential)
        if credentialHashed { try container.encode(true, forKey: .credentialHashed) }
        try container.encodeIfPresent(authenticated, forKey: .authenticated)
        try container.encodeIfPresent(sun, forKey: .sun)
    }
}

/// The verdict of a ``TrustReport``.
package enum TrustVerdict: String, Sendable, Equatable, Encodable {
    /// Every configured check passed and the credential was read: a door may open.
    case trusted
    /// A check failed or the credential could not be read: ``TrustReport/reason`` says which.
    case untrusted
}

/// Why a tap is not trusted: a stable snake_case `code` (published as `reason`, never renamed)
/// and a message for people. New checks add their reasons as static members in their own files.
package struct TrustReason: Sendable, Hashable {
    /// The stable code.
    package let code: String
    /// What it means, for people (docs/access-control.md lists every code).
    package let message: String

    /// A reason with its code and message.
    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `access.signature: require` and the signature does not verify against any known key.
    package static let signatureInvalid = TrustReason(
        code: "signature_invalid", message: "the originality signature does not verify against any known NXP key")
    /// `access.signature: require` and the tag gave no signature (its product has none, or it refused READ_SIG).
    package static let signatureMissing = TrustReason(
        code: "signature_missing", message: "the tag gave no originality signature and access.signature requires one")
    /// A clone probe fired (``TrustReport/cloneProbes`` names it).
    package static let cloneDetected = TrustReason(
        code: "clone_detected", message: "a clone probe fired: the tag behaves as no genuine NXP product does")
    /// The tag left or stopped answering while the checks ran (an `event/error` says how).
    package static let checkInterrupted = TrustReason(
        code: "check_interrupted", message: "the tag left or stopped answering during the access checks")
    /// The credential `access.credential` names could not be read from the tag.
    package static let credentialMissing = TrustReason(
        code: "credential_missing", message: "the credential access.credential names could not be read from this tag")
    /// `access.credential_hash: true` and the credential's SHA-256 could not be made (an `event/error`
    /// says why: `library_unavailable` names the package to install).
    package static let credentialHashFailed = TrustReason(
        code: "credential_hash_failed",
        message: "the credential could not be hashed (access.credential_hash): see the scan's event/error, e.g. install libssl3")
}

/// The originality signature as the `trust` object carries it: `verdict`, and for a valid one the
/// key it verified against and its curve.
package struct SignatureTrust: Sendable, Equatable, Encodable {
    /// What the check found.
    package enum Verdict: String, Sendable, Equatable, Encodable {
        /// It verifies against ``key``.
        case valid
        /// The tag answered with a signature that verifies against no known key: a clone, a blank or
        /// custom signature, or a genuine chip whose key is not in the table.
        case invalid
        /// The tag's product has a signature but it did not answer READ_SIG (or answered garbage).
        case unreadable
        /// The tag's product has no originality signature (or NFCBridge cannot read it: ISO 15693).
        case unsupported
    }

    /// The verdict.
    package var verdict: Verdict
    /// The name of the key it verified against (a row of NFCCore's originality key table), for `valid` only.
    package var key: String?
    /// The key's curve (`secp128r1`, `secp192r1`, `secp224r1`), for `valid` only.
    package var curve: String?

    /// Creates the member.
    package init(verdict: Verdict, key: String? = nil, curve: String? = nil) {
        self.verdict = verdict
        self.key = key
        self.curve = curve
    }
}
