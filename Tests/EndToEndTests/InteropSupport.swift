import Foundation
import NFCCore
import Testing
import TestSupport

/// What the Interop*Tests share: files going between Debian's libnfc tools and the built `nfcbridge`
/// (`dump`, `import`, `export`), each read back with NFCCore's own JSON importer.
enum Interop {
    /// A virtual tag type (`nfcbridge-sim` scenario name) and the card type it is.
    struct Product: Sendable, CustomTestStringConvertible {
        var kind: String
        var type: CardType
        var testDescription: String { kind }

        /// Type 2 memory map.
        var map: Type2MemoryMap? { Type2MemoryMap.forType(type) }
        /// Classic sector layout.
        var layout: ClassicLayout? { ClassicLayout.forType(type) }
    }

    /// `nfcbridge dump` of the tag in `simulator`'s field, through real libnfc, as NFCBridge JSON.
    static func dump(on simulator: SimulatorProcess, sourceLocation: SourceLocation = #_sourceLocation) throws -> TagDump {
        let result = try runNFCBridge(["dump", "--device", simulator.connstring, "--compact", "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)", sourceLocation: sourceLocation)
        return try TagDump.importJSON(Array(result.stdout))
    }

    /// `nfcbridge dump` written to `path` as JSON.
    static func dump(on simulator: SimulatorProcess, to path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try runNFCBridge(["dump", "--device", simulator.connstring, "--output", path, "--timeout", "20"])
        #expect(result.status == 0, "\(result.err)", sourceLocation: sourceLocation)
    }

    /// `nfcbridge import FILE` (format told from the content), read back from its JSON.
    static func importFile(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> TagDump {
        let result = try runNFCBridge(["import", path, "--compact"])
        #expect(result.status == 0, "\(result.err)", sourceLocation: sourceLocation)
        return try TagDump.importJSON(Array(result.stdout))
    }

    /// `nfcbridge export --from FILE --format FORMAT --output FILE`; the bytes written.
    static func export(_ path: String, format: String, to output: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> [UInt8]
    {
        let result = try runNFCBridge(["export", "--from", path, "--format", format, "--output", output])
        #expect(result.status == 0, "\(result.err)", sourceLocation: sourceLocation)
        return try bytes(output)
    }

    /// The bytes of a file.
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Pages by number.
    static func pages(_ dump: TagDump) -> [Int: [UInt8]] {
        Dictionary(dump.pages.map { ($0.number, $0.data) }, uniquingKeysWith: { first, _ in first })
    }

    /// Blocks by number.
    static func blocks(_ dump: TagDump) -> [Int: [UInt8]] {
        Dictionary(dump.blocks.map { ($0.number, $0.data) }, uniquingKeysWith: { first, _ in first })
    }

    /// `memory` cut into `unit`-byte pieces by number.
    static func units(_ memory: [UInt8], _ unit: Int) -> [Int: [UInt8]] {
        Dictionary(uniqueKeysWithValues: stride(from: 0, to: memory.count - unit + 1, by: unit).map {
            ($0 / unit, Array(memory[$0..<$0 + unit]))
        })
    }
}
