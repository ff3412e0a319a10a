import NFCCore
import Testing
@testable import PN532Sim

/// Each virtual ISO/IEC 15693 product answers the ISO/IEC 15693-3 commands its datasheet lists and
/// refuses the others as the chip does (error 01h, command not supported); what it lists but the simulator
/// does not model is error 0Fh (``aListedCommandNotModelledIsAnISOError``). The expected sets are
/// written here from the datasheets' command lists, apart from the simulator's rows
/// (``VirtualISO15693Model/commands``), so a row that gives a product a command it lacks fails.
@Suite struct VirtualISO15693CommandSetTests {
    /// A non-addressed request (flags 02h: high data rate) for each code, answered by a product that
    /// has the command in its factory state.
    static let catalog: [(code: UInt8, frame: [UInt8])] = [
        (0x20, [0x02, 0x20, 0x00]),  // READ SINGLE BLOCK 0
        (0x21, [0x02, 0x21, 0x01, 0x11, 0x22, 0x33, 0x44]),  // WRITE SINGLE BLOCK 1
        (0x22, [0x02, 0x22, 0x05]),  // LOCK BLOCK 5
        (0x23, [0x02, 0x23, 0x00, 0x01]),  // READ MULTIPLE BLOCKS 0–1
        (0x26, [0x02, 0x26]),  // RESET TO READY
        (0x2B, [0x02, 0x2B]),  // GET SYSTEM INFORMATION
        (0x30, [0x02, 0x30, 0x00, 0x00]),  // EXTENDED READ SINGLE BLOCK 0
        (0x31, [0x02, 0x31, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44]),  // EXTENDED WRITE SINGLE BLOCK 1
        (0x32, [0x02, 0x32, 0x05, 0x00]),  // EXTENDED LOCK BLOCK 5
        (0x33, [0x02, 0x33, 0x00, 0x00, 0x01, 0x00]),  // EXTENDED READ MULTIPLE BLOCKS 0–1
        (0x3B, [0x02, 0x3B, 0x0F]),  // EXTENDED GET SYSTEM INFORMATION
    ]

    /// Per product, the catalog codes its datasheet lists:
    /// - ICODE SLIX (SL2S2002, "Supported commands"): the ISO/IEC 15693 mandatory and optional commands
    ///   INVENTORY, STAY QUIET, READ/WRITE SINGLE BLOCK, LOCK BLOCK, READ MULTIPLE BLOCKS, SELECT, RESET TO
    ///   READY, WRITE/LOCK AFI, WRITE/LOCK DSFID, GET SYSTEM INFORMATION, GET MULTIPLE BLOCK SECURITY
    ///   STATUS; no WRITE MULTIPLE BLOCKS and none of the EXTENDED commands.
    /// - ST25DV64K (DS10925, "RF command sets"): the same without LOCK BLOCK (areas are protected by
    ///   passwords instead), with WRITE MULTIPLE BLOCKS and the EXTENDED read, write, read multiple, write
    ///   multiple, get system information and get multiple block security status — no EXTENDED LOCK BLOCK.
    /// - ICODE SLIX2 (SL2S2602, "Supported commands"): the SLIX's ISO/IEC 15693 commands.
    static let listed: [(VirtualISO15693Model, Set<UInt8>)] = [
        (.icodeSLIX, [0x20, 0x21, 0x22, 0x23, 0x26, 0x2B]),
        (.icodeSLIX2, [0x20, 0x21, 0x22, 0x23, 0x26, 0x2B]),
        (.st25dv64k, [0x20, 0x21, 0x23, 0x26, 0x2B, 0x30, 0x31, 0x33, 0x3B]),
    ]

    static func fresh(_ model: VirtualISO15693Model) throws -> VirtualISO15693Tag {
        let tag = try VirtualISO15693Tag(model: model, uid: VirtualISO15693Tag.uid(for: model, serial: [0x01, 0x02, 0x03]))
        _ = tag.activate()
        return tag
    }

    /// Every catalog code but EXTENDED LOCK BLOCK (which neither product has) is listed by some product.
    @Test func everyCatalogCodeIsListedBySomeProduct() {
        for (code, _) in Self.catalog where code != 0x32 {
            #expect(Self.listed.contains { $0.1.contains(code) }, "\(code): no product lists it")
        }
    }

    /// The rows agree with the sets above within the catalog.
    @Test(arguments: listed) func theRowListsTheDatasheetCommands(model: VirtualISO15693Model, codes: Set<UInt8>) {
        let catalog = Set(Self.catalog.map(\.code))
        #expect(model.commands.intersection(catalog) == codes, "\(model.name)")
    }

    /// A code the datasheet does not list is answered error 01h (command not supported), and the tag
    /// keeps answering: a READ SINGLE BLOCK afterwards succeeds.
    @Test(arguments: listed) func anUnlistedCommandIsRefused(model: VirtualISO15693Model, codes: Set<UInt8>) throws {
        for (code, frame) in Self.catalog where !codes.contains(code) {
            let tag = try Self.fresh(model)
            #expect(tag.receive(frame) == .data([0x01, 0x01]), "\(model.name) \(code)")
            #expect(tag.receive([0x02, 0x20, 0x00]) == .data([0x00, 0x00, 0x00, 0x00, 0x00]), "\(model.name) after \(code)")
        }
    }

    /// A code the datasheet lists is answered without error (flags byte 00h).
    @Test(arguments: listed) func aListedCommandIsAnswered(model: VirtualISO15693Model, codes: Set<UInt8>) throws {
        for (code, frame) in Self.catalog where codes.contains(code) {
            let answer = try Self.fresh(model).receive(frame)
            guard case let .data(bytes) = answer else {
                Issue.record("\(model.name) \(code): \(answer)")
                continue
            }
            #expect(bytes.first == 0x00, "\(model.name) \(code): \(bytes)")
        }
    }

    /// READ SIGNATURE (NXP custom command BDh, SL2S2602 §9.5.3.20, Tables 76–78: flags, BDh, IC Mfg code
    /// 04h, then the UID when addressed): the SLIX2 answers flags 00h and its 32-byte signature, addressed
    /// or not; a request with another manufacturer's code and the SLIX (whose datasheet has no such
    /// command) get error 01h; a request addressed to another UID gets no answer.
    @Test func theSLIX2AnswersReadSignatureAndTheSLIXRefusesIt() throws {
        let slix2 = try Self.fresh(.icodeSLIX2)
        let signature = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        slix2.signature = signature
        let uid = Array(slix2.target.uid.reversed())
        #expect(slix2.receive([0x22, 0xBD, 0x04] + uid) == .data([0x00] + signature))
        #expect(slix2.receive([0x02, 0xBD, 0x04]) == .data([0x00] + signature))
        #expect(slix2.receive([0x02, 0xBD, 0x02]) == .data([0x01, 0x01]))
        #expect(slix2.receive([0x22, 0xBD, 0x04] + uid.map { $0 ^ 0x01 }) == .silent)

        let slix = try Self.fresh(.icodeSLIX)
        #expect(slix.receive([0x22, 0xBD, 0x04] + Array(slix.target.uid.reversed())) == .data([0x01, 0x01]))
    }

    /// Codes each datasheet lists that the simulator does not model (WRITE MULTIPLE BLOCKS 24h / 34h,
    /// WRITE / LOCK AFI and DSFID 27h–2Ah, GET MULTIPLE BLOCK SECURITY STATUS 2Ch / 3Ch), with a request
    /// of the right shape for each: an ISO/IEC 15693-3 §7.4 error response, flags 01h and error 0Fh (no
    /// information given) — neither silence nor 01h (not supported), which would say the chip lacks it.
    static let listedNotModelled: [(VirtualISO15693Model, [[UInt8]])] = [
        (.icodeSLIX, [[0x02, 0x27, 0x3D], [0x02, 0x28], [0x02, 0x29, 0x01], [0x02, 0x2A], [0x02, 0x2C, 0x00, 0x03]]),
        (.icodeSLIX2, [[0x02, 0x27, 0x3D], [0x02, 0x28], [0x02, 0x29, 0x01], [0x02, 0x2A], [0x02, 0x2C, 0x00, 0x03]]),
        (.st25dv64k, [[0x02, 0x24, 0x01, 0x00, 1, 2, 3, 4], [0x02, 0x27, 0x3D], [0x02, 0x28], [0x02, 0x29, 0x01], [0x02, 0x2A],
                      [0x02, 0x2C, 0x00, 0x03], [0x02, 0x34, 0x01, 0x00, 0x00, 0x00, 1, 2, 3, 4],
                      [0x02, 0x3C, 0x00, 0x00, 0x03, 0x00]]),
    ]

    @Test(arguments: listedNotModelled)
    func aListedCommandNotModelledIsAnISOError(model: VirtualISO15693Model, frames: [[UInt8]]) throws {
        for frame in frames {
            #expect(model.commands.contains(frame[1]), "\(model.name) lists \(frame[1])")
            #expect(!VirtualISO15693Command.modelled.contains(frame[1]))
            let tag = try Self.fresh(model)
            #expect(tag.receive(frame) == .data([0x01, 0x0F]), "\(model.name) \(frame.hexString)")
            // Addressed to the tag (flags 22h, UID LSB first) the answer is the same.
            let addressed = [0x22, frame[1]] + tag.target.uid.reversed() + Array(frame.dropFirst(2))
            #expect(tag.receive(addressed) == .data([0x01, 0x0F]), "\(model.name) addressed \(frame.hexString)")
            // Nothing changed: block 1 still reads zeros.
            #expect(tag.receive([0x02, 0x20, 0x01]) == .data([0x00, 0x00, 0x00, 0x00, 0x00]), "\(model.name) after \(frame[1])")
        }
    }
}
