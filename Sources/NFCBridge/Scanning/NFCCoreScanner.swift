import Foundation
import NFCCore

/// The scanner on NFCCore: ``TagIdentifier`` identifies the tag, the family's dumper reads it (the
/// NDEF message comes out of the dump, as `nfcbridge scan` does), and NFCCore's `ScanReport` is the
/// scan object of `event/scanned`. The dump is kept in the ``TagScan`` so `event/dump` does not
/// read the tag a second time.
///
/// Families without a dumper yet are scanned without NDEF (no error event for that); a dump that
/// fails halfway (tag removed, timeout) becomes a problem of the scan, published as `event/error`.
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
        var dump: TagDump?
        do {
            dump = try await TagDumper.dump(info: info, transport: transport, classicKeys: classicKeys)
        } catch {
            if error.isNFCCancellation { throw error }
            switch error as? NFCError {
            case .unsupportedOperation, .tagNotSupported: break  // nothing to read for this family yet
            case let nfcError?: problems.append(nfcError)
            case nil: problems.append(.rfError(String(describing: error)))
            }
        }
        let report = ScanReport(cardInfo: info, ndefMessage: dump?.ndefMessage)
        return TagScan(
            uid: info.uid, cardType: info.type.description, report: try JSONValue(encoding: report), problems: problems,
            cardInfo: info, tagDump: dump)
    }

    public func dump(_ transport: any TagTransport, scan: TagScan) async throws -> JSONValue {
        let dump: TagDump
        if let kept = scan.tagDump {
            dump = kept
        } else if let info = scan.cardInfo {
            dump = try await TagDumper.dump(info: info, transport: transport, classicKeys: classicKeys)
        } else {
            throw NFCError.unsupportedOperation("The tag could not be identified, so it cannot be dumped")
        }
        return try JSONValue(parsing: Data(try dump.exportJSON(prettyPrinted: false).utf8))
    }
}
