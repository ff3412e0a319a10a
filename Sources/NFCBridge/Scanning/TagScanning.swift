import NFCCore

/// How the agent reads a tag that entered the field: identify + NDEF for `event/scanned`, and the
/// full dump for `event/dump`. The real implementation sits on NFCCore's identification and
/// dumpers; tests inject their own.
package protocol TagScanning: Sendable {
    /// Identifies the tag behind `transport` and reads its NDEF message. Throws only when nothing
    /// beyond the anticollision data could be learnt (the agent then falls back to
    /// ``TagScan/init(target:)`` and reports the error).
    func scan(_ transport: any TagTransport) async throws -> TagScan

    /// Dumps the tag (after `scan`). The dump stays a value: `event/dump` encodes its JSON export.
    func dump(_ transport: any TagTransport, scan: TagScan) async throws -> TagDump
}
