import NFCCore

/// Runs the access checks of an ``AccessPolicy`` on the tag a scan identified and makes its
/// ``TrustReport``: the originality signature, the clone probes, then the credential. Called by the
/// scanner after the identification and NDEF read, on the reader's task, with the tag still selected.
///
/// Checks added later (DESFire authentication, NTAG 424 SUN) run here too: each sets its own member of
/// the report and calls ``TrustReport/refuse(_:)`` when it fails.
package enum TrustEvaluator {
    /// The report for the tag `info` describes, whose NDEF records the scan read (`records`); a
    /// DESFire credential behind a key is read with `keys` (`auth.keys_file`).
    /// Throws only what ends the scan (the tag left and cannot be re-selected, cancellation).
    package static func evaluate(
        _ policy: AccessPolicy, info: CardInfo, records: [NDEFRecordJSON], transport: any TagTransport,
        keys: DESFireKeys = .standard
    ) async throws -> TrustReport {
        var report = TrustReport(credentialSource: policy.credential.kind, credentialHashed: policy.credentialHash)

        var outcome: OriginalityCheck.Outcome?
        if policy.signature != .ignore {
            let checked = try await OriginalityCheck.check(info: info, transport: transport, extraKeys: policy.extraKeys)
            outcome = checked
            report.signature = SignatureTrust(checked)
            if policy.signature == .require {
                switch checked {
                case .valid: break
                case .invalid: report.refuse(.signatureInvalid)
                case .unreadable, .unsupported: report.refuse(.signatureMissing)
                }
            }
        }

        let findings = try await CloneProbes.run(policy.probes, info: info, signature: outcome, transport: transport)
        report.cloneProbes = findings.map(\.name.rawValue)
        if !findings.isEmpty { report.refuse(.cloneDetected) }

        let read = try await CredentialReader.read(policy.credential, info: info, records: records, transport: transport, keys: keys)
        if !read.authentications.isEmpty {
            report.authenticated = read.authentications.map(AuthenticatedRead.init)
            // A refused key names its application and key number in `authenticated`; the tap is refused.
            if read.authentications.contains(where: { $0.outcome != .opened }) { report.refuse(.authFailed) }
        }
        if read.failedIntegrity { report.refuse(.integrityError) }
        if let credential = read.bytes {
            report.credential = policy.credentialHash ? sha256Hex(credential) : credential.hexString
        } else if policy.credential != .sun {
            // The SUN check, when it verifies the message, sets the credential itself.
            report.refuse(.credentialMissing)
        }
        return report
    }

    /// SHA-256 of `bytes`, uppercase hex (libcrypto `EVP_Q_digest`); the credential is never published
    /// in clear with `access.credential_hash: true`, so a libcrypto failure (or a libcrypto that cannot be loaded) gives a fixed marker.
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        guard let lib = try? LibCrypto.load() else { return "sha256_failed" }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = 0
        let status = lib.EVP_Q_digest(nil, "SHA256", nil, bytes, bytes.count, &digest, &length)
        guard status == 1, length == 32 else { return "sha256_failed" }
        return digest.hexString
    }
}

extension SignatureTrust {
    /// The `signature` member for an NFCCore originality check's outcome.
    init(_ outcome: OriginalityCheck.Outcome) {
        switch outcome {
        case let .valid(key, _): self.init(verdict: .valid, key: key.name, curve: key.curve.rawValue)
        case .invalid: self.init(verdict: .invalid)
        case .unreadable: self.init(verdict: .unreadable)
        case .unsupported: self.init(verdict: .unsupported)
        }
    }
}
