import Foundation
import NFCCore
@testable import PN532Sim
import TestSupport
import Testing

/// The simulator keeps its own datasheet tables (docs/simulator.md, "Where the simulator's tables come
/// from"). These tests keep it that way and compare its tables with NFCCore's, row by row: a row wrong
/// on one side only fails here, instead of passing every in-process test on both sides.
@Suite struct SimulatorTablesTests {
    // MARK: - PN532Sim borrows no NFCCore table

    /// The NFCCore declarations PN532Sim may import: the transport and reader protocols it implements
    /// in process and their value types, the error type, and the dump types its dump adapter
    /// (`VirtualType2Tag(dump:)`) reads. No code: no CRC or BCC (``AirChecksum``), no crypto
    /// (`SimulatedTripleDES`, `SimulatedCipher`), no NDEF codec (``ScenarioNDEF``), and no product,
    /// GET_VERSION, lock, access-bit, Classic layout or FeliCa map type.
    static let allowedImports: Set<String> = [
        "APDUTransport", "CardType", "ClassicAuthenticating", "ClassicKeyType", "Framing", "ISO15693Request",
        "ISO15693Transport", "Modulation", "NFCError", "ReaderDevice", "ReaderInfo", "TagDump", "TagTransport", "Target",
    ]

    /// NFCCore names PN532Sim's code must not use, even qualified (`NFCCore.Type2Product`).
    static let forbiddenNames = [
        "Type2Product", "Type2MemoryMap", "GetVersionTable", "Type2LockMap", "Type2Lock", "Type2Format",
        "NFCForumTLV", "Type2CapabilityContainer", "UltralightCAuthentication", "ClassicLayout", "AccessBits",
        "AccessCondition", "ClassicAccessTables", "ClassicBlockPermissions", "FeliCaLiteMemoryMap",
    ]

    /// Every PN532Sim source file: (path relative to the package, lines).
    static func simulatorSources() throws -> [(path: String, lines: [String])] {
        let root = Binaries.packageRoot.appendingPathComponent("Sources/PN532Sim")
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var files: [(String, [String])] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            files.append((url.path.replacingOccurrences(of: Binaries.packageRoot.path + "/", with: ""),
                          text.components(separatedBy: "\n")))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The build-level half: with only scoped imports (`import struct NFCCore.Target`), a PN532Sim file
    /// cannot even name an NFCCore type it did not import (the compiler says "cannot find … in scope").
    /// This test makes sure every import of NFCCore stays scoped and names only an allowed declaration,
    /// and that no code line names a table type qualified.
    @Test func pn532SimImportsNoNFCCoreTables() throws {
        let files = try Self.simulatorSources()
        #expect(files.count > 30)
        var scopedImports = 0
        for (path, lines) in files {
            for (index, line) in lines.enumerated() {
                let code = line.components(separatedBy: "//")[0]
                let words = code.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                if let importAt = words.firstIndex(of: "import"), words.dropFirst(importAt + 1).contains(where: {
                    $0 == "NFCCore" || $0.hasPrefix("NFCCore.")
                }) {
                    // `import <kind> NFCCore.<Name>` and nothing else.
                    let rest = Array(words[(importAt + 1)...])
                    let name = rest.count == 2 && rest[1].hasPrefix("NFCCore.") ? String(rest[1].dropFirst(8)) : nil
                    #expect(name.map(Self.allowedImports.contains) == true,
                            "\(path):\(index + 1): `\(line)` — import single allowed NFCCore declarations only")
                    scopedImports += 1
                }
                for name in Self.forbiddenNames where code.range(of: "\\b\(name)\\b", options: .regularExpression) != nil {
                    Issue.record("\(path):\(index + 1) uses NFCCore's \(name): `\(line)`")
                }
            }
        }
        #expect(scopedImports > 10)
    }

    // MARK: - NFCCore's tables, read through their public API
    //
    // Every direct use of NFCCore's Type 2 / Classic / FeliCa tables is in this section, so a reshaping of
    // those tables changes only these adapters, not the comparisons below.

    /// NFCCore's memory map of `type` as the simulator's layout fields.
    private func coreLayout(_ type: CardType) -> [String: Int?]? {
        guard let map = Type2MemoryMap.forType(type) else { return nil }
        return ["totalPages": map.totalPages, "userEnd": map.userEnd, "dynamicLockPage": map.dynamicLockPage,
                "configPage": map.configPage, "auth0Offset": map.auth0Offset, "accessPage": map.accessPage,
                "passwordPage": map.passwordPage, "packPage": map.packPage, "keyStart": map.keyPages?.lowerBound,
                "readablePages": map.readablePages]
    }

    private func simLayout(_ layout: VirtualType2Layout) -> [String: Int?] {
        ["totalPages": layout.totalPages, "userEnd": layout.userEnd, "dynamicLockPage": layout.dynamicLockPage,
         "configPage": layout.configPage, "auth0Offset": layout.auth0Offset, "accessPage": layout.accessPage,
         "passwordPage": layout.passwordPage, "packPage": layout.packPage, "keyStart": layout.keyPages?.lowerBound,
         "readablePages": layout.readablePages]
    }

    /// NFCCore's dynamic lock bits of `type` as "byte.bit:first-last".
    private func coreLockBits(_ type: CardType) -> [String] {
        Type2LockMap.dynamicBits(for: type).map { "\($0.byte).\($0.bit):\($0.pages.lowerBound)-\($0.pages.upperBound)" }
    }

    /// NFCCore's product for a GET_VERSION answer: (name, exact?).
    private func coreVersion(_ version: [UInt8]) -> (name: String, exact: Bool)? {
        GetVersionTable.lookup(version).map { ($0.product.name, $0.isExact) }
    }

    /// NFCCore's product name for what identification found.
    private func coreProductName(_ info: CardInfo) -> String? { Type2Product.forCardInfo(info)?.name }

    /// NFCCore's commands of a product, named like the simulator's features.
    private func coreFeatures(_ info: CardInfo) -> Set<String> {
        guard let product = Type2Product.forCardInfo(info) else { return [] }
        let names: [(Type2Product.Features, String)] = [
            (.getVersion, "getVersion"), (.fastRead, "fastRead"), (.readSignature, "readSignature"),
            (.readCounter, "readCounter"), (.checkTearingEvent, "checkTearingEvent"), (.pwdAuth, "pwdAuth"),
            (.tripleDESAuthentication, "tripleDESAuthentication"), (.compatibilityWrite, "compatibilityWrite"),
            (.incrementCounter, "incrementCounter"), (.virtualCardSelect, "virtualCardSelect"),
        ]
        return Set(names.filter { product.features.contains($0.0) }.map(\.1))
    }

    private func coreCounters(_ info: CardInfo) -> [[UInt8]] {
        guard let product = Type2Product.forCardInfo(info) else { return [] }
        return [product.counters, product.tearingCounters, product.counterNeedsEnable ? [1] : []]
    }

    private func simFeatures(_ product: VirtualType2Product) -> Set<String> {
        let names: [(VirtualType2Product.Features, String)] = [
            (.getVersion, "getVersion"), (.fastRead, "fastRead"), (.readSignature, "readSignature"),
            (.readCounter, "readCounter"), (.checkTearingEvent, "checkTearingEvent"), (.pwdAuth, "pwdAuth"),
            (.tripleDESAuthentication, "tripleDESAuthentication"), (.compatibilityWrite, "compatibilityWrite"),
            (.incrementCounter, "incrementCounter"), (.virtualCardSelect, "virtualCardSelect"),
        ]
        return Set(names.filter { product.features.contains($0.0) }.map(\.1))
    }

    // MARK: - The cross-check

    static let uid: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]

    /// One test, every table: Type 2 products (identification, dump size, memory map, commands, counters,
    /// GET_VERSION rows, lock layout — checked by locking with NFCCore and writing to the simulator),
    /// the Classic layouts and access rules, and the FeliCa Lite / Lite-S maps.
    @Test func simulatorTablesAgreeWithNFCCore() async throws {
        // Type 2, named models: NFCCore identifies each virtual tag as the simulator's product and dumps
        // every page the simulator says can be read.
        for model in VirtualType2Model.named {
            let product = model.product
            let tag = VirtualType2Tag(model: model, uid: Self.uid)
            let transport = VirtualTagTransport(tag: tag)
            let info = try await TagIdentifier.identify(transport)
            #expect(VirtualType2Model(cardType: info.type) == model, "\(product.name): identified as \(info.type)")
            // Identification names the exact product only from GET_VERSION; without it the row of the type.
            #expect(info.product?.name == (product.version == nil ? nil : product.name))
            #expect(coreProductName(info) == product.name)
            #expect(info.version == product.version)
            let dump = try await TagDumper.dump(info: info, transport: VirtualTagTransport(tag: tag))
            #expect(dump.pages.count == product.layout.readablePages, "\(product.name): pages dumped")
            #expect(dump.pages.map(\.data) == (0..<dump.pages.count).map { page in
                Array(tag.memory[page * 4..<page * 4 + 4]).enumerated().map { index, byte in
                    page == product.layout.passwordPage || page == product.layout.packPage ? 0 : byte
                }
            }, "\(product.name): dumped bytes")
            // The rows themselves.
            #expect(coreLayout(info.type) == simLayout(product.layout), "\(product.name): memory map")
            #expect(coreFeatures(info) == simFeatures(product), "\(product.name): commands")
            #expect(coreCounters(info) == [product.counters, product.tearingCounters, product.counterNeedsEnable ? [1] : []],
                    "\(product.name): counters")
            #expect(coreLockBits(info.type) == product.dynamicLockBits.map {
                "\($0.byte).\($0.bit):\($0.pages.lowerBound)-\($0.pages.upperBound)"
            }, "\(product.name): dynamic lock bits")
            try await lockAgrees(model)
        }

        // Every GET_VERSION row of the simulator is the same product, exactly, in NFCCore; a custom tag
        // answering it is identified as that product.
        for product in VirtualType2Product.named + VirtualType2Product.variants {
            guard let version = product.version else { continue }
            let match = try #require(coreVersion(version), "\(product.name)")
            #expect(match.exact && match.name == product.name, "\(product.name): NFCCore says \(match.name)")
            let pages = product.layout.totalPages > 0 ? product.layout.totalPages : 16
            let tag = VirtualType2Tag(model: .custom(version: version, totalPages: pages), uid: Self.uid)
            let info = try await TagIdentifier.identify(VirtualTagTransport(tag: tag))
            #expect(info.product?.name == product.name)
            if product.layout.totalPages > 0 {
                #expect(coreLayout(info.type) == simLayout(product.layout), "\(product.name): memory map")
                #expect(coreFeatures(info) == simFeatures(product), "\(product.name): commands")
            }
        }

        try classicTablesAgree()
        feliCaMapsAgree()
    }

    /// NFCCore locks a factory-fresh tag; the simulator must then refuse a WRITE to every user page and
    /// the CC, and have accepted one before.
    private func lockAgrees(_ model: VirtualType2Model) async throws {
        let layout = model.product.layout
        let fresh = VirtualType2Tag(model: model, uid: Self.uid)
        for page in [3] + Array(layout.userStart...layout.userEnd) {
            _ = fresh.activate()
            // The CC is OTP: writing its own bytes back changes nothing.
            let data = page == 3 ? Array(fresh.memory[12..<16]) : [0x11, 0x22, 0x33, 0x44]
            #expect(fresh.receive([0xA2, UInt8(page)] + data) == .ack, "\(model): page \(page) writable at delivery")
        }
        let tag = VirtualType2Tag(model: model, uid: Self.uid)
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        _ = try await TagOperations.lock(transport, info: info, expectedUID: Self.uid)
        for page in [3] + Array(layout.userStart...layout.userEnd) {
            _ = tag.activate()
            #expect(tag.receive([0xA2, UInt8(page), 0x11, 0x22, 0x33, 0x44]) == .nak(0),
                    "\(model): page \(page) still writable after NFCCore locked the tag")
        }
    }

    private func classicTablesAgree() throws {
        let models: [(VirtualClassicTag.Model, CardType)] = [
            (.mini, .mifareMini), (.classic1K, .mifareClassic1K), (.classic4K, .mifareClassic4K),
        ]
        for (model, type) in models {
            let sim = model.layout
            let core = try #require(ClassicLayout.forType(type))
            #expect(sim.sectorCount == core.sectorCount && sim.totalBlocks == core.totalBlocks, "\(model)")
            for sector in 0..<core.sectorCount {
                #expect(sim.blocks(ofSector: sector) == core.blocks(ofSector: sector), "\(model) sector \(sector)")
                #expect(sim.trailerBlock(ofSector: sector) == core.trailerBlock(ofSector: sector))
            }
            for block in 0..<core.totalBlocks {
                #expect(sim.sector(ofBlock: block) == core.sector(ofBlock: block), "\(model) block \(block)")
                #expect(sim.accessGroup(ofBlock: block) == core.accessGroup(ofBlock: block), "\(model) block \(block)")
                #expect(sim.isTrailer(block) == core.isTrailer(block))
            }
        }
        // Access bits: every data condition × every trailer condition, both keys, every group; NFCCore
        // encodes the bytes, the simulator decodes them.
        for data in UInt8(0)...7 {
            for trailer in UInt8(0)...7 {
                let bits = AccessBits(conditions: [AccessCondition(data), AccessCondition((data + 3) % 8),
                                                   AccessCondition((data + 5) % 8), AccessCondition(trailer)])
                let conditions = try #require(VirtualClassicAccess.conditions(bits.bytes[...]))
                #expect(conditions == [Int(data), Int((data + 3) % 8), Int((data + 5) % 8), Int(trailer)])
                for group in 0..<4 {
                    for (coreKey, simKey) in [(ClassicKeyType.a, VirtualClassicAccess.KeyType.a), (.b, .b)] {
                        let c = bits.permissions(group: group, keyType: coreKey)
                        let s = VirtualClassicAccess.rights(conditions: conditions, group: group, key: simKey)
                        let core = [c.read, c.write, c.writeKeyA, c.readAccessBits, c.writeAccessBits, c.readKeyB, c.writeKeyB]
                        let sim = [s.read, s.write, s.writeKeyA, s.readAccessBits, s.writeAccessBits, s.readKeyB, s.writeKeyB]
                        #expect(core == sim, "data \(data) trailer \(trailer) group \(group) key \(coreKey)")
                    }
                }
                // A corrupted copy blocks the sector on both sides.
                var broken = bits.bytes
                broken[0] ^= 0x01
                #expect(VirtualClassicAccess.conditions(broken[...]) == nil)
                #expect(throws: NFCError.self) { try AccessBits.decode(broken) }
            }
        }
    }

    private func feliCaMapsAgree() {
        for (model, type) in [(VirtualFeliCaTag.Model.lite, CardType.felicaLite), (.liteS, .felicaLiteS)] {
            let sim = VirtualFeliCaTag.liteMemory.filter { model == .liteS || !$0.liteSOnly }
                .map { "\($0.number):\($0.name):\($0.readable)" }
            let core = (FeliCaLiteMemoryMap.forType(type) ?? []).map { "\($0.number):\($0.name):\($0.readable)" }
            #expect(sim == core, "\(model)")
        }
    }
}
