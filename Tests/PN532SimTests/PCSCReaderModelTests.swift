import NFCCore
import Testing
@testable import PN532Sim

/// Each reader model of `nfcbridge-sim --pcsc-reader` refuses what its manual does not list (6A 81, as
/// the ACR122U answers FF C2) and answers its own vendor commands; the ACR122U's Direct Transmit reaches
/// the tag and its LED / buzzer state is what the control channel reports.
@Suite struct PCSCReaderModelTests {
    let field = RFField()
    let catalog = TagCatalog()

    func reader(_ model: PCSCReaderModel, kind: TagKind = .ntag215) throws -> PCSCReaderEmulation {
        let tag = try catalog.define(TagSpec(id: "t", kind: kind, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))
        let reader = PCSCReaderEmulation(field: field, profile: .init(model: model))
        reader.insert(field.place(tag, id: "t"))
        return reader
    }

    /// One probe command per row of ``PCSCReaderModel/Command``.
    static let probes: [(PCSCReaderModel.Command, String)] = [
        (.getData, "FFCA000000"), (.readUpdateBinary, "FFB0000410"), (.classicKeys, "FF82000006FFFFFFFFFFFF"),
        (.transparentSession, "FFC20000028100"), (.directTransmit, "FF00000003D44260"),
        (.ledBuzzer, "FF0040CF0401010101"), (.firmwareVersion, "FF00480000"),
    ]

    /// What each model lists, written out here from the manuals (not read back from the model's table).
    static let listed: [PCSCReaderModel: Set<PCSCReaderModel.Command>] = [
        .part3: [.getData, .readUpdateBinary, .classicKeys],
        .part3Transparent: [.getData, .readUpdateBinary, .classicKeys, .transparentSession],
        .acr122u: [.getData, .readUpdateBinary, .classicKeys, .directTransmit, .ledBuzzer, .firmwareVersion],
        .acr1252u: [.getData, .readUpdateBinary, .classicKeys],
        .acr1552u: [.getData, .readUpdateBinary, .classicKeys, .transparentSession],
    ]

    @Test(arguments: PCSCReaderModel.allCases) func eachModelRefusesWhatItsManualDoesNotList(_ model: PCSCReaderModel) throws {
        let listed = try #require(Self.listed[model])
        for (command, apdu) in Self.probes {
            let answer = try reader(model).process(apdu.apdu).hexString
            // Refused: 6A 81 (function not supported) for a part 3 command, 6D 00 (instruction not
            // supported) for an ACR122U pseudo-APDU (INS 00) on another reader.
            let refusal = apdu.hasPrefix("FF00") ? "6D00" : "6A81"
            if listed.contains(command) {
                #expect(answer != refusal, "\(model) \(command): \(answer)")
            } else {
                #expect(answer == refusal, "\(model) must refuse \(command) (\(apdu)) as its manual does not list it: \(answer)")
            }
        }
    }

    @Test func acr122uDirectTransmitCarriesGetVersionToTheTag() throws {
        let acr122u = try reader(.acr122u)
        // InCommunicateThru 60h: D5 43, status 00, the NTAG215's GET_VERSION answer, 90 00.
        #expect(acr122u.process("FF00000003D44260".apdu).hexString == "D54300" + "0004040201001103" + "9000")
        // GetFirmwareVersion of the PN532 inside.
        #expect(acr122u.process("FF00000002D402".apdu).hexString == "D503320106079000")
        // The firmware string has no status word.
        #expect(acr122u.process("FF00480000".apdu) == Array("ACR122U201".utf8))
    }

    @Test func acr122uLEDAndBuzzerStateIsKept() throws {
        let acr122u = try reader(.acr122u)
        // Red on (bit 0 + mask bit 2), green off (mask bit 3), two beeps linked to T1.
        #expect(acr122u.process("FF00400D0401010201".apdu).hexString == "9001")
        var state = acr122u.panel.snapshot
        #expect(state.red && !state.green && state.beeps == 2 && state.commands == 1)
        // Green on only: red untouched without its mask.
        #expect(acr122u.process("FF00400A0401010100".apdu).hexString == "9003")
        state = acr122u.panel.snapshot
        #expect(state.red && state.green && state.beeps == 2 && state.commands == 2)
    }
}

extension String {
    /// The bytes of a hex string literal of this file (always valid hex).
    fileprivate var apdu: [UInt8] { [UInt8](hex: self) ?? [] }
}
