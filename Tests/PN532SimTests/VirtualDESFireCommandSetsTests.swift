import Testing
@testable import PN532Sim

/// Each virtual DESFire-family product refuses what its datasheet does not list (91 1C) and answers
/// 91 9D to what it lists but the simulator does not model (``VirtualDESFireCommandSets``).
@Suite struct VirtualDESFireCommandSetsTests {
    typealias V = VirtualDESFireTag
    static let uid: [UInt8] = [0x04, 0x52, 0x61, 0x7A, 0x3B, 0x40, 0x80]

    static func tag(_ model: V.Model) throws -> V {
        let app = V.Application(aid: [0x01, 0x00, 0x00], files: [V.File(id: 0x00, read: V.free, contents: .standard([1, 2, 3]))])
        let tag = try V(uid: uid, model: model, applications: [app])
        _ = tag.activate()
        // Enter the application the product's way, so a refusal is the command's, not the state's.
        switch model {
        case .light: _ = tag.process(apdu: [0x00, 0xA4, 0x04, 0x0C, 0x10] + V.lightDFName + [0x00])
        case .ntag424: _ = tag.process(apdu: [0x00, 0xA4, 0x04, 0x0C, 0x07] + V.ntag424DFName + [0x00])
        default: _ = tag.process(apdu: [0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00])
        }
        return tag
    }

    static func wrapped(_ tag: V, _ ins: UInt8, _ data: [UInt8] = []) -> [UInt8] {
        tag.process(apdu: [0x90, ins, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00])
    }

    /// Per product, codes its datasheet does not list: EV1 has no ISO-chaining ReadData ADh nor EV2
    /// authentication 71h (MF3ICD(Q)81 §9); Light no BDh / BBh / 45h / 5Ah / 6Ah (MF2DL(H)x0 command set);
    /// NTAG 424 DNA no 6Fh / 5Ah / 6Ah / 45h / BDh / BBh / ABh / 6Ch (NT4H2421Gx §10.2 Table 22);
    /// EV2 / EV3 none of the unassigned codes.
    @Test(arguments: [
        (V.Model.ev1, [UInt8]([0xAD, 0xAB, 0x71, 0x77])),
        (.ev2, [0x00, 0x2B, 0xB0]),
        (.ev3, [0x00, 0x2B, 0xB0]),
        (.light, [0xBD, 0xBB, 0x45, 0x5A, 0x6A, 0xCD, 0xCA, 0x6D, 0x6E, 0xFC]),
        (.ntag424, [0x6F, 0x5A, 0x6A, 0x45, 0xBD, 0xBB, 0xAB, 0x6C, 0x0C, 0xC7, 0x61]),
    ])
    func aCommandOutsideTheDatasheetSetIsIllegal(model: V.Model, codes: [UInt8]) throws {
        let tag = try Self.tag(model)
        for code in codes {
            #expect(Self.wrapped(tag, code, [0x00]) == [0x91, 0x1C], "\(model) \(code)")
        }
    }

    /// The data commands split by generation: EV1 has only the native ReadData BDh / WriteData 3Dh /
    /// ReadRecords BBh / WriteRecord 3Bh (MF3ICD(Q)81 §9.4), the Light only the ISO-chaining ADh / 8Dh /
    /// ABh / 8Bh (MF2DL(H)x0 command set), NTAG 424 DNA only ADh / 8Dh and no record file
    /// (NT4H2421Gx §10.2 Table 22). Every code of the other generation is ILLEGAL_COMMAND_CODE.
    @Test(arguments: [
        (V.Model.ev1, [UInt8]([0xAD, 0x8D, 0xAB, 0x8B])),
        (.light, [0xBD, 0x3D, 0xBB, 0x3B]),
        (.ntag424, [0xBD, 0x3D, 0xBB, 0x3B, 0xAB, 0x8B]),
    ])
    func theOtherGenerationsDataCommandsAreIllegal(model: V.Model, codes: [UInt8]) throws {
        let tag = try Self.tag(model)
        for code in codes {
            #expect(Self.wrapped(tag, code, [0x00, 0, 0, 0, 0, 0, 0]) == [0x91, 0x1C], "\(model) \(code)")
        }
    }

    /// In the set but not modelled: PERMISSION_DENIED, never a made-up answer nor 91 1C.
    @Test(arguments: [(V.Model.ev1, UInt8(0xC4)), (.ev2, 0xC6), (.ev3, 0x51), (.light, 0xC4), (.light, 0x8D), (.ntag424, 0xC4),
                      (.ntag424, 0x8D), (.ntag424, 0x51)])
    func aListedCommandNotSimulatedIsPermissionDenied(model: V.Model, code: UInt8) throws {
        let tag = try Self.tag(model)
        #expect(Self.wrapped(tag, code, [0x00]) == [0x91, 0x9D])
    }

    /// The authentications the simulator now models answer their first step: 0Ah / 1Ah on an EV1 3DES
    /// application (E(K, RndB), `91 AF`), 77h without an EV2First session `91 AE` (AN12343 "AuthenticateEV2NonFirst").
    @Test func legacyISOAndNonFirstAreModelled() throws {
        let app = V.Application(aid: [0x56, 0x34, 0x12], files: [], keys: [0: [UInt8](repeating: 0, count: 16)], keyType: .tdes2k)
        let tag = try V(uid: [0x04, 1, 2, 3, 4, 5, 6], model: .ev1, applications: [app])
        #expect(Self.wrapped(tag, 0x5A, [0x56, 0x34, 0x12]) == [0x91, 0x00])
        #expect(Array(Self.wrapped(tag, 0x0A, [0x00]).suffix(2)) == [0x91, 0xAF])
        #expect(Array(Self.wrapped(tag, 0x1A, [0x00]).suffix(2)) == [0x91, 0xAF])
        #expect(Self.wrapped(tag, 0xAA, [0x00]) == [0x91, 0xAE], "an AES authentication of a 3DES key")
        let ev2 = try V(uid: [0x04, 1, 2, 3, 4, 5, 6], model: .ev2, applications: [V.Application(aid: [0x56, 0x34, 0x12], files: [])])
        #expect(Self.wrapped(ev2, 0x5A, [0x56, 0x34, 0x12]) == [0x91, 0x00])
        #expect(Self.wrapped(ev2, 0x77, [0x00]) == [0x91, 0xAE])
    }

    /// What every product reads its file with: BDh on EV1, ADh on Light and 424, both on EV2 / EV3.
    @Test(arguments: [(V.Model.ev1, [UInt8(0xBD)]), (.ev2, [0xBD, 0xAD]), (.ev3, [0xBD, 0xAD]), (.light, [0xAD]), (.ntag424, [0xAD])])
    func theReadCodesOfEachProductReadTheFile(model: V.Model, codes: [UInt8]) throws {
        let tag = try Self.tag(model)
        for code in codes {
            #expect(Self.wrapped(tag, code, [0x00, 0, 0, 0, 0, 0, 0]) == [1, 2, 3, 0x91, 0x00], "\(model) \(code)")
        }
    }

    /// Every simulated row is one the tag really answers; no code is listed twice.
    @Test(arguments: V.Model.allCases) func theTableHasNoDuplicates(model: V.Model) {
        let codes = VirtualDESFireCommandSets.rows(model).map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(VirtualDESFireCommandSets.handling(of: 0x60, by: model) == .simulated)
    }

    /// The ATS (without TL) each product answers RATS with: the DESFire EV1/EV2/EV3 `75 77 81 02 80`
    /// (FSCI 5, 64-byte frames; MF3ICD(Q)81 §8.1), NTAG 424 DNA `77 77 71 02 80` (FSCI 7, 128-byte frames,
    /// TB 71h) — the value NT4H2421Gx cards answer, not the EV1 one — whether the simulator plays it as a
    /// DESFire-family tag or as the SDM tag.
    @Test func eachProductAnswersItsOwnATS() throws {
        #expect(try Self.tag(.ev1).target.ats == [0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(try Self.tag(.ev3).target.ats == [0x75, 0x77, 0x81, 0x02, 0x80])
        let ntag424 = try Self.tag(.ntag424).target.ats
        #expect(ntag424 == [0x77, 0x77, 0x71, 0x02, 0x80])
        #expect(ntag424.first.map { $0 & 0x0F } == 7, "FSCI 7: 128-byte frames")
        let sdm = try VirtualSDMTag(uid: Self.uid, ndef: [UInt8](repeating: 0, count: 30),
                                    mirror: .init(metaReadKey: nil, fileReadKey: [UInt8](repeating: 0, count: 16),
                                                  macInputOffset: 0, macOffset: 0))
        #expect(sdm.target.ats == ntag424)
    }

    /// NTAG 424 DNA allows one application only, its Type 4 one.
    @Test func ntag424HasOneApplication() {
        let apps = (1...2).map { V.Application(aid: [UInt8($0), 0, 0], files: []) }
        #expect(throws: (any Error).self) { try V(uid: Self.uid, model: .ntag424, applications: apps) }
    }
}
