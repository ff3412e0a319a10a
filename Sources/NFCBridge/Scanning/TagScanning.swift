import NFCCore

/// How the agent reads a tag that entered the field: identify + NDEF for `event/scanned`, and the
/// full dump for `event/dump`. The real implementation sits on NFCCore's identification and
/// dumpers; tests inject their own.
public protocol TagScanning: Sendable {
    /// Identifies the tag behind `transport` and reads its NDEF message. Throws only when nothing
    /// beyond the anticollision data could be learnt (the agent then falls back to
    /// ``TagScan/init(target:)`` and reports the error).
    func scan(_ transport: any TagTransport) async throws -> TagScan

    /// Dumps the tag (after `scan`) and returns the JSON export of the dump.
    func dump(_ transport: any TagTransport, scan: TagScan) async throws -> JSONValue
}

/// A scanner that only reports what anticollision gave (UID, ATQA, SAK, ATS) and cannot dump:
/// the fallback while no identification is available.
public struct AnticollisionScanner: TagScanning {
    /// Creates the scanner.
    public init() {}

    public func scan(_ transport: any TagTransport) async throws -> TagScan {
        TagScan(target: transport.target)
    }

    public func dump(_ transport: any TagTransport, scan: TagScan) async throws -> JSONValue {
        throw NFCError.unsupportedOperation("Dumps are not available in this build")
    }
}
