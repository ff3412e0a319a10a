import FoundationEssentials
import Glibc
import NFCCore

/// The scanner on NFCCore: ``TagIdentifier`` identifies the tag, ``NDEFReader`` reads only its NDEF
/// message (a few commands, never a dump, as `nfcbridge scan` does), and NFCCore's `ScanReport` is the
/// scan object of `event/scanned`. The full dump is read by ``dump(_:scan:)``, which the reader loop
/// calls after `scanned` went out, and only with `dump.on_scan`.
///
/// An NDEF message the tag refuses or garbles is reported in the scan object (`ndefStatus`,
/// `ndefError`), not as an error; a tag that leaves while its NDEF is read is a problem of the scan,
/// published as `event/error` after the identification.
package struct NFCCoreScanner: TagScanning {
    /// The families' dump settings every dump gets (``AgentConfiguration/DumpSettings/families``).
    package let familyOptions: FamilyDumpOptions
    /// The access checks every scan ends with (`access`); nil: none, and no `trust` object.
    package let access: AccessPolicy?
    /// Where warnings about the configuration a tap revealed go (the agent's log): the DESFire
    /// AID-order warning of ``DESFireKeyOrderWarning``.
    package let warn: @Sendable (String) -> Void

    /// Creates the scanner; `familyOptions` are the families' dump settings, `access` the checks of
    /// the `trust` object (nil: none), `warn` the agent's warning log.
    package init(familyOptions: FamilyDumpOptions = FamilyDumpOptions(), access: AccessPolicy? = nil,
                 warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.familyOptions = familyOptions
        self.access = access
        self.warn = warn
    }

    /// Scans at most this many times while the tag stays. With 1 byte in 500 lost on the reader link a
    /// scan of an NTAG215 (GET_VERSION with its register switches, the CC, the NDEF: about 200 bytes on
    /// the line) meets a loss in roughly one in three; three attempts left about one tap in thirty wrong
    /// *and* doubted three times (2 to 4 wrong final scans in 150 taps of `bench/lossy.py`), six leave
    /// about one in a thousand on an average scan. Losses cluster by chance, though: seed 2 of that bench
    /// dropped 11 bytes in the ~60 PN532 commands of one scan (about 4 expected) and failed all six
    /// attempts, and the commands right after them went through. A tag that really
    /// left stops the attempts after two failed re-selects (``maximumFailedReselects``); one that really
    /// has a password is not doubted (its AUTH0 confirms it). A tag that stays and keeps failing costs
    /// ten attempts (about 0.5 s each when each meets a 350 ms timeout) before its last one is published.
    package static let maximumAttempts = 10

    /// Re-selects that must fail in a row before the scanner takes the tag for gone: one may be a lost
    /// answer (a re-select's answer is lost about one time in thirty on that link), two rarely are.
    package static let maximumFailedReselects = 2

    /// Identifies the tag and reads its NDEF message; an attempt that failed on what may be a transport
    /// error (``ScanCheck/mayBeTransient(_:)``) or whose result contradicts itself (``ScanCheck/doubt(info:ndef:transport:)``)
    /// is made again after a re-select, up to ``maximumAttempts`` in all, or until ``maximumFailedReselects``
    /// re-selects in a row found no tag. The last attempt that got as far as an identification stands;
    /// with none, the last error is thrown.
    package func scan(_ transport: any TagTransport) async throws -> TagScan {
        var kept: (info: CardInfo, ndef: NDEFReadResult, problems: [NFCError], sun: SUNCheck?)?
        var failedReselects = 0
        for attempt in 1...Self.maximumAttempts {
            let isLast = attempt == Self.maximumAttempts || failedReselects == Self.maximumFailedReselects
            do {
                let result = try await scanOnce(transport)
                kept = result
                if isLast { break }
                let doubt = try await ScanCheck.doubt(info: result.0, ndef: result.1, transport: transport)
                if doubt == nil { break }
            } catch {
                if error.isNFCCancellation { throw error }
                guard !isLast, let nfcError = error as? NFCError, ScanCheck.mayBeTransient(nfcError) else {
                    if kept != nil { break }
                    throw error
                }
            }
            // A tag that really left fails the re-selects too; one whose answer was lost answers one.
            do {
                try await transport.reselect()
                failedReselects = 0
            } catch {
                if error.isNFCCancellation { throw error }
                failedReselects += 1
            }
        }
        guard let kept else { throw NFCError.tagRemoved }
        let report = ScanReport(cardInfo: kept.info, ndef: kept.ndef)
        var scan = TagScan(
            uid: kept.info.uid, report: report,
            problems: kept.problems, cardInfo: kept.info)
        scan.sun = kept.sun
        if let access { try await check(access, scan: &scan, transport: transport) }
        return scan
    }

    /// Runs the access checks once, on the scan that stands. A tag that leaves or stops answering
    /// during them is refused (`check_interrupted`) and the problem reported; the tap itself is kept.
    /// A tag that already left during its NDEF read is refused so without being asked again.
    private func check(_ access: AccessPolicy, scan: inout TagScan, transport: any TagTransport) async throws {
        guard let info = scan.cardInfo else { return }
        if scan.problems.contains(.tagRemoved) {
            var trust = TrustReport(credentialSource: access.credential, credentialHashed: access.credentialHash)
            trust.refuse(.checkInterrupted)
            scan.trust = trust
            return
        }
        do {
            var problems: [NFCError] = []
            scan.trust = try await TrustEvaluator.evaluate(
                access, info: info, records: scan.report.ndef?.records ?? [], transport: transport, keys: familyOptions.desfireKeys,
                problems: &problems)
            scan.problems += problems
        } catch {
            if error.isNFCCancellation { throw error }
            var trust = TrustReport(credentialSource: access.credential, credentialHashed: access.credentialHash)
            trust.refuse(.checkInterrupted)
            scan.trust = trust
            scan.problems.append(error as? NFCError ?? .rfError(String(describing: error)))
        }
    }

    /// One identification and NDEF read, and for an NTAG 424 DNA its SUN message checked
    /// (``NTAG424SUN``: one GetFileSettings, then the keys of ``NTAG424SUNOptions``). A tag that leaves
    /// during the NDEF read is a problem of the scan, not its end.
    private func scanOnce(_ transport: any TagTransport) async throws -> (CardInfo, NDEFReadResult, [NFCError], SUNCheck?) {
        let info = try await TagIdentifier.identify(transport)
        do {
            let ndef = try await NDEFReader.read(info: info, transport: transport, justIdentified: true)
            var sun: SUNCheck?
            if info.type == .ntag424DNA, let message = ndef.message, !message.isEmpty {
                sun = try await NTAG424SUN.check(ndefMessage: message, transport: transport, options: familyOptions[NTAG424SUNOptions.self])
            }
            return (info, ndef, [], sun)
        } catch {
            if error.isNFCCancellation { throw error }
            let nfcError = error as? NFCError ?? .rfError(String(describing: error))
            return (info, .unreadable(nfcError), [nfcError], nil)
        }
    }

    package func dump(_ transport: any TagTransport, scan: TagScan) async throws -> TagDump {
        if let kept = scan.tagDump { return kept }
        guard let info = scan.cardInfo else {
            throw NFCError.unsupportedOperation("The tag could not be identified, so it cannot be dumped")
        }
        let dump = try await TagDumper.dump(info: info, transport: transport, options: DumpOptions(families: familyOptions))
        for line in DESFireKeyOrderWarning.lines(families: familyOptions, dump: dump) { warn(line) }
        return dump
    }
}
