import NFCCore
import Testing
@testable import PN532Sim

@Suite struct VirtualFeliCaTagTests {
    let idm: [UInt8] = [0x01, 0x2E, 0x3C, 0x4D, 0x5E, 0x6F, 0x70, 0x81]
    /// Text "CoreExtendedNFC" (22 bytes).
    let message: [UInt8] = [0xD1, 0x01, 0x12, 0x54, 0x02, 0x65, 0x6E] + Array("CoreExtendedNFC".utf8)

    func read(_ tag: VirtualFeliCaTag, service: [UInt8] = [0x0B, 0x00], blocks: [UInt8]) -> [UInt8]? {
        var command: [UInt8] = [0x06] + idm
        command += [0x01] + service
        command.append(UInt8(blocks.count))
        for block in blocks { command += [0x80, block] }
        return tag.process(felica: command)
    }

    func write(_ tag: VirtualFeliCaTag, block: UInt8, data: [UInt8]) -> [UInt8]? {
        tag.process(felica: [0x08] + idm + [0x01, 0x09, 0x00, 0x01, 0x80, block] + data)
    }

    @Test func pollingAnswersPerSystemCode() throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: idm, ndef: message)
        #expect(tag.target.systemCode == [0x88, 0xB4])
        #expect(tag.target.pmm[1] == 0xF1)
        #expect(tag.answersPolling(systemCode: [0xFF, 0xFF]))
        #expect(tag.answersPolling(systemCode: [0x88, 0xB4]))
        #expect(tag.answersPolling(systemCode: [0x12, 0xFC]))
        #expect(!tag.answersPolling(systemCode: [0x00, 0x03]))
        #expect(tag.process(felica: [0x00, 0xFF, 0xFF, 0x01, 0x00]) == [0x01] + idm + tag.target.pmm + [0x88, 0xB4])
        #expect(tag.process(felica: [0x00, 0x12, 0xFC, 0x01, 0x00]) == [0x01] + idm + tag.target.pmm + [0x12, 0xFC])
        #expect(tag.process(felica: [0x00, 0x12, 0xFC, 0x00, 0x00]) == [0x01] + idm + tag.target.pmm)
        let blank = try VirtualFeliCaTag(model: .lite, idm: idm)
        #expect(!blank.answersPolling(systemCode: [0x12, 0xFC]), "NDEF not enabled in MC")
    }

    @Test func attributeBlockAndNDEFBlocks() throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: idm, ndef: message)
        // Ver 10, Nbr 04, Nbw 01, Nmaxb 000D, WriteFlag 00, RWFlag 01, Ln 000016, checksum.
        #expect(tag.block(0)?.hexString == "100401000D0000000000010000160039")
        let answer = try #require(read(tag, blocks: [0, 1, 2]))
        #expect(Array(answer.prefix(12)) == [0x07] + idm + [0x00, 0x00, 0x03])
        #expect(Array(answer[28..<50]) == message)
        #expect(tag.ndefMessage == message)
        #expect(read(tag, blocks: [0, 1, 2, 3, 4]) == [0x07] + idm + [0xFF, 0xA2], "Nbr is 4")
    }

    @Test func liteHasNoBlock90() throws {
        let lite = try VirtualFeliCaTag(model: .lite, idm: idm)
        let liteS = try VirtualFeliCaTag(model: .liteS, idm: idm)
        #expect(read(lite, blocks: [0x90]) == [0x07] + idm + [0x01, 0xA8])
        #expect(read(liteS, blocks: [0x90])?.count == 12 + 16)
        #expect(read(liteS, blocks: [0x87]) == [0x07] + idm + [0x01, 0xA8], "CK is write-only")
        #expect(read(liteS, blocks: [0x83]) == [0x07] + idm + [0, 0, 1] + idm + liteS.target.pmm)
    }

    @Test func writesCountAndObeyMemoryConfiguration() throws {
        let tag = try VirtualFeliCaTag(model: .liteS, idm: idm, ndef: message)
        let data = [UInt8](repeating: 0xAB, count: 16)
        #expect(write(tag, block: 5, data: data) == [0x09] + idm + [0x00, 0x00])
        #expect(tag.block(5) == data)
        #expect(tag.writeCount == 1)
        // Read-only service 000B cannot write.
        #expect(tag.process(felica: [0x08] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x05] + data) == [0x09] + idm + [0x01, 0xA5])
        // Make S_PAD 5 read-only through MC bytes 0–1.
        var mc = try #require(tag.block(0x88))
        mc[0] = 0xDF
        #expect(write(tag, block: 0x88, data: mc) == [0x09] + idm + [0x00, 0x00])
        #expect(write(tag, block: 5, data: [UInt8](repeating: 0, count: 16)) == [0x09] + idm + [0x01, 0xA5])
        #expect(tag.block(5) == data)
        #expect(write(tag, block: 0x83, data: data) == [0x09] + idm + [0x01, 0xA5], "D_ID is read-only")
        #expect(tag.writeCount == 2)
    }

    /// Lite-S user's manual §2.3.10: MC permission bits are write-once, and MC_ALL 00h makes MC and the
    /// system blocks read-only.
    @Test func memoryConfigurationBitsOnlyGoReadOnly() throws {
        let tag = try VirtualFeliCaTag(model: .lite, idm: idm, ndef: message)
        var mc = try #require(tag.block(0x88))
        mc[0] = 0xFE
        #expect(write(tag, block: 0x88, data: mc) == [0x09] + idm + [0x00, 0x00])
        #expect(write(tag, block: 0, data: [UInt8](repeating: 0, count: 16)) == [0x09] + idm + [0x01, 0xA5], "S_PAD0 read-only")
        mc[0] = 0xFF
        #expect(write(tag, block: 0x88, data: mc) == [0x09] + idm + [0x00, 0x00])
        #expect(tag.block(0x88)?[0] == 0xFE, "a cleared permission bit stays cleared")
        #expect(write(tag, block: 1, data: [UInt8](repeating: 0x11, count: 16)) == [0x09] + idm + [0x00, 0x00], "S_PAD1 still writable")
        mc[2] = 0x00
        #expect(write(tag, block: 0x88, data: mc) == [0x09] + idm + [0x00, 0x00])
        mc[2] = 0xFF
        #expect(write(tag, block: 0x88, data: mc) == [0x09] + idm + [0x01, 0xA5], "MC_ALL 00h: MC is read-only")
        #expect(write(tag, block: 0x82, data: [UInt8](repeating: 0, count: 16)) == [0x09] + idm + [0x01, 0xA5], "ID too")
    }

    @Test func requestServiceResponseAndSystemCodes() throws {
        let tag = try VirtualFeliCaTag(model: .standard, idm: idm, ndef: message, services: [0x008B: [[UInt8](repeating: 1, count: 16)]])
        #expect(tag.process(felica: [0x02] + idm + [0x03, 0x0B, 0x00, 0x8B, 0x00, 0x4B, 0x00])
                == [0x03] + idm + [0x03, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF])
        #expect(tag.process(felica: [0x04] + idm) == [0x05] + idm + [0x00])
        #expect(tag.process(felica: [0x0C] + idm) == [0x0D] + idm + [0x01, 0x12, 0xFC])
        #expect(read(tag, service: [0x8B, 0x00], blocks: [0]) == [0x07] + idm + [0, 0, 1] + [UInt8](repeating: 1, count: 16))
        #expect(read(tag, service: [0x8B, 0x00], blocks: [1]) == [0x07] + idm + [0x01, 0xA8])
        #expect(tag.process(felica: [0x04] + [UInt8](repeating: 0, count: 8)) == nil, "another IDm")
    }

    @Test func feliCaThroughTheTransport() async throws {
        let tag = try VirtualFeliCaTag(model: .lite, idm: idm, ndef: message)
        let transport = VirtualTagTransport(tag: tag)
        let readBlock0: [UInt8] = [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
        let answer = try await transport.transceive([0x06] + idm + readBlock0)
        #expect(Array(answer.prefix(12)) == [0x07] + idm + [0x00, 0x00, 0x01])
        await #expect(throws: NFCError.timeout) { try await transport.transceive([0x06, 1, 2, 3, 4, 5, 6, 7, 8] + readBlock0) }
        await #expect(throws: NFCError.timeout, "a Lite has no Request Response") {
            try await transport.transceive([0x04] + idm)
        }
    }

    // MARK: Command sets

    /// One frame per command code (after POLLING, which every product answers), for this suite's IDm.
    static func frame(_ code: UInt8, idm: [UInt8]) -> [UInt8] {
        switch code {
        case 0x02: [0x02] + idm + [0x01, 0x0B, 0x00]  // REQUEST SERVICE, one node
        case 0x06: [0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]  // READ block 0 of 000Bh
        case 0x08: [0x08] + idm + [0x01, 0x09, 0x00, 0x01, 0x80, 0x01] + [UInt8](repeating: 0x5A, count: 16)
        default: [code] + idm  // REQUEST RESPONSE 04h, REQUEST SYSTEM CODE 0Ch, and codes no product has
        }
    }

    /// Codes sent to every product: the plain commands the simulator models, and 07h / 0Dh, response
    /// codes (command + 1, JIS X 6319-4) that are no command on any product.
    static let catalog: [UInt8] = [0x02, 0x04, 0x06, 0x08, 0x0C, 0x07, 0x0D]

    /// Per product, the catalog codes its manual lists, written here from the manuals apart from the
    /// simulator's ``VirtualFeliCaTag/Model/commands``:
    /// - FeliCa Lite (RC-S965) user's manual ch. 4: Polling, Read Without Encryption, Write Without Encryption.
    /// - FeliCa Lite-S (RC-S966) user's manual ch. 4: the same three.
    /// - FeliCa card user's manual (excerpted edition) ch. 4: Request Service, Request Response, Read and
    ///   Write Without Encryption, Request System Code (and others outside the catalog).
    static let listed: [(VirtualFeliCaTag.Model, Set<UInt8>)] = [
        (.lite, [0x06, 0x08]),
        (.liteS, [0x06, 0x08]),
        (.standard, [0x02, 0x04, 0x06, 0x08, 0x0C]),
    ]

    @Test func everyModelHasASet() {
        #expect(Set(Self.listed.map(\.0)) == Set(VirtualFeliCaTag.Model.allCases))
    }

    /// A code the manual does not list gets no answer (FeliCa has no error frame for an unknown command),
    /// and the card still answers a listed command afterwards.
    @Test(arguments: listed) func anUnlistedCommandIsRefused(model: VirtualFeliCaTag.Model, codes: Set<UInt8>) throws {
        for code in Self.catalog where !codes.contains(code) {
            let tag = try VirtualFeliCaTag(model: model, idm: idm, ndef: message)
            #expect(tag.process(felica: Self.frame(code, idm: idm)) == nil, "\(model) \(code)")
            #expect(tag.process(felica: Self.frame(0x06, idm: idm))?.first == 0x07, "\(model) after \(code)")
        }
    }

    /// A code the manual lists is answered with its response code (command + 1).
    @Test(arguments: listed) func aListedCommandIsAnswered(model: VirtualFeliCaTag.Model, codes: Set<UInt8>) throws {
        for code in codes {
            let tag = try VirtualFeliCaTag(model: model, idm: idm, ndef: message)
            #expect(tag.process(felica: Self.frame(code, idm: idm))?.first == code + 1, "\(model) \(code)")
        }
    }
}
