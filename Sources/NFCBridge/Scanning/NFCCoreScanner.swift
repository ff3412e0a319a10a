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
public struct NFCCoreScanner: TagScanning {
    /// The keys MIFARE Classic dumps try.
    public let classicKeys: ClassicKeyDictionary

    /// Creates the scanner.
    public init(classicKeys: ClassicKeyDictionary = .standard) {
        self.classicKeys = classicKeys
    }

    /// Scans at most this many times while the tag stays. With 1 byte in 500 lost on the reader link a
    /// scan of an NTAG215 (about 10 frames of up to 70 bytes each way) meets a loss in roughly one in
    /// five; three attempts leave about one scan in a hundred wrong *and* doubted three times, while a
    /// tag that really has a password, or that really left, costs two extra reads at most.
    public static let maximumAttempts = 3

    /// Identifies the tag and reads its NDEF message; an attempt that failed on what may be a transport
    /// error (``ScanCheck/mayBeTransient(_:)``) or whose result contradicts itself (``ScanCheck/doubt(info:ndef:transport:)``)
    /// is made again after a re-select, up to ``maximumAttempts`` in all. The last attempt that got as far
    /// as an identification stands; with none, the last error is thrown.
    public func scan(_ transport: any TagTransport) async throws -> TagScan {
        var kept: (info: CardInfo, ndef: NDEFReadResult, problems: [NFCError])?
        for attempt in 1...Self.maximumAttempts {
            let isLast = attempt == Self.maximumAttempts
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
            // A tag that really left fails the next attempt too; one whose answer was lost answers it.
            do { try await transport.reselect() } catch { if error.isNFCCancellation { throw error } }
        }
        guard let kept else { throw NFCError.tagRemoved }
        let report = ScanReport(cardInfo: kept.info, ndef: kept.ndef)
        return TagScan(
            uid: kept.info.uid, report: report,
            problems: kept.problems, cardInfo: kept.info)
    }

    /// One identification and NDEF read. A tag that leaves during the NDEF read is a problem of the
    /// scan, not its end.
    private func scanOnce(_ transport: any TagTransport) async throws -> (CardInfo, NDEFReadResult, [NFCError]) {
        let info = try await TagIdentifier.identify(transport)
        do {
            return (info, try await NDEFReader.read(info: info, transport: transport), [])
        } catch {
            if error.isNFCCancellation { throw error }
            let nfcError = error as? NFCError ?? .rfError(String(describing: error))
            return (info, .unreadable(nfcError), [nfcError])
        }
    }

    public func dump(_ transport: any TagTransport, scan: TagScan) async throws -> TagDump {
        if let kept = scan.tagDump { return kept }
        guard let info = scan.cardInfo else {
            throw NFCError.unsupportedOperation("The tag could not be identified, so it cannot be dumped")
        }
        var options = DumpOptions()
        options.classicKeys = classicKeys
        return try await TagDumper.dump(info: info, transport: transport, options: options)
    }
}
