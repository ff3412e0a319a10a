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

    public func scan(_ transport: any TagTransport) async throws -> TagScan {
        let info = try await TagIdentifier.identify(transport)
        var problems: [NFCError] = []
        let ndef: NDEFReadResult
        do {
            ndef = try await NDEFReader.read(info: info, transport: transport)
        } catch {
            if error.isNFCCancellation { throw error }
            let nfcError = error as? NFCError ?? .rfError(String(describing: error))
            problems.append(nfcError)
            ndef = .unreadable(nfcError)
        }
        let report = ScanReport(cardInfo: info, ndef: ndef)
        return TagScan(
            uid: info.uid, cardType: info.type.description, report: try JSONValueEncoder().encode(report), problems: problems,
            cardInfo: info)
    }

    public func dump(_ transport: any TagTransport, scan: TagScan) async throws -> JSONValue {
        let dump: TagDump
        if let kept = scan.tagDump {
            dump = kept
        } else if let info = scan.cardInfo {
            var options = DumpOptions()
            options.classicKeys = classicKeys
            dump = try await TagDumper.dump(info: info, transport: transport, options: options)
        } else {
            throw NFCError.unsupportedOperation("The tag could not be identified, so it cannot be dumped")
        }
        return try JSONValueEncoder().encode(dump.jsonExportDocument)
    }
}
