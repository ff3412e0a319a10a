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
    /// Throws only what ends the scan (the tag left and cannot be re-selected, cancellation); an error
    /// that only refuses the tap (the credential's hash cannot be made) is added to `problems`, for
    /// the scan to report.
    package static func evaluate(
        _ policy: AccessPolicy, info: CardInfo, records: [NDEFRecordJSON], transport: any TagTransport,
        keys: DESFireKeys = .standard, problems: inout [NFCError]
    ) async throws -> TrustReport {
        var report = TrustReport(credentialSource: policy.credential, credentialHashed: policy.credentialHash)

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
        if read.unproven { report.refuse(.credentialUnproven) }
        if let credential = read.bytes {
            do {
                report.credential = try published(credential, hashed: policy.credentialHash)
            } catch {
                // Neither the credential in clear nor a stand-in value: the tap is refused, the error reported.
                report.refuse(.credentialHashFailed)
                problems.append(error)
            }
        } else if policy.credential != .sun && !read.unproven {
            // The SUN check, when it verifies the message, sets the credential itself (a tap with no
            // valid message is refused there: Agent.trust(_:with:)).
            report.refuse(.credentialMissing)
        }
        return report
    }

    /// The credential as `trust.credential` carries it: uppercase hex, or with `hashed`
    /// (`access.credential_hash: true`) the uppercase hex of its SHA-256 (libcrypto `EVP_Q_digest`).
    /// `crypto` gives libcrypto's functions (a test passes a failing one).
    /// - Throws: `library_unavailable` when libcrypto cannot be loaded (the message names the package),
    ///   `crypto_failure` when its digest fails.
    static func published(
        _ credential: [UInt8], hashed: Bool, crypto: () throws(NFCError) -> LibCrypto = LibCrypto.load
    ) throws(NFCError) -> String {
        guard hashed else { return credential.hexString }
        let lib = try crypto()
        var digest = [UInt8](repeating: 0, count: 32)
        var length = 0
        let status = lib.EVP_Q_digest(nil, "SHA256", nil, credential, credential.count, &digest, &length)
        guard status == 1, length == 32 else {
            throw .cryptoFailure("libcrypto's SHA-256 of the credential failed (access.credential_hash)")
        }
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
