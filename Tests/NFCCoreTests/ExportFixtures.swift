import Foundation
import Testing
@testable import NFCCore

/// Loading the export fixtures (Tests/NFCCoreTests/Fixtures, see SOURCES.md there) and building the
/// dumps the tests share.
enum ExportFixtures {
    /// The products with a full set of fixtures in Fixtures/type2 (`<key>.input.json`, `.nfc`,
    /// `.pm3.bin`, `.mfd`).
    static let type2Keys = ["ultralight", "ulc", "ul11", "ul21", "ntag203", "ntag210", "ntag212", "ntag213", "ntag215", "ntag216"]

    /// The bytes of `Fixtures/<path>`.
    static func bytes(_ path: String) throws -> [UInt8] {
        let root = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return Array(try Data(contentsOf: root.appendingPathComponent(path)))
    }

    /// The text of `Fixtures/<path>`.
    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self)
    }

    /// The input dump of a Type 2 product (imported from its hand-written JSON).
    static func type2Dump(_ key: String) throws -> TagDump {
        try TagDump.importJSON(try bytes("type2/\(key).input.json"))
    }

    /// Page `number` of `data`.
    static func page(_ number: Int, _ hex: String) -> Page {
        Page(number: number, data: [UInt8](hex: hex) ?? [])
    }

    /// DumpInteropTests' synthetic Type 2 dump (UID 04 57 01 CA 53 28 80; BCCs deliberately invalid).
    static func interopDump(pages: [Page]) -> TagDump {
        TagDump(cardInfo: CardInfo(type: .ntag213, uid: [0x04, 0x57, 0x01, 0xCA, 0x53, 0x28, 0x80]), pages: pages)
    }

    /// `dump` with every page of its product's readable memory that it lacks added as zeros: a dump read
    /// in full, for tests of the fixed-offset formats (MFD, Proxmark3), which refuse a partial dump
    /// (`partial_dump`) rather than fill it with zeros themselves.
    static func filled(_ dump: TagDump) -> TagDump {
        var dump = dump
        let count = max(Type2MemoryMap.forType(dump.cardInfo.type)?.readablePages ?? 0, (dump.pages.map(\.number).max() ?? -1) + 1)
        let present = Set(dump.pages.map(\.number))
        dump.pages += (0..<count).filter { !present.contains($0) }.map { Page(number: $0, data: [0, 0, 0, 0]) }
        dump.pages.sort { $0.number < $1.number }
        return dump
    }

    /// Pages 0, 1, 2 of the interop dump.
    static let interopPages = [page(0, "04570184"), page(1, "CA532880"), page(2, "DB480000")]
}
