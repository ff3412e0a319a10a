import CPCSCLite
import NFCCore
@testable import PCSCReader
import Testing

/// PCSCReader's command mapping against a scripted reader: which pseudo-APDU each NFCCore command
/// becomes, and how status words and transparent-session data objects come back (no pcscd needed).
@Suite struct PCSCMappingTests {
    /// A reader that answers from a script and records what it was sent.
    final class ScriptedReader: @unchecked Sendable {
        var sent: [[UInt8]] = []
        var answers: [[UInt8]]
        init(_ answers: [[UInt8]]) { self.answers = answers }

        func mapping(_ target: Target) -> PCSCCommandMapping {
            PCSCCommandMapping(reader: "pcsc:Test Reader 00 00", target: target) { apdu throws(NFCError) in
                self.sent.append(apdu)
                guard !self.answers.isEmpty else { throw NFCError.timeout }
                return self.answers.removeFirst()
            }
        }
    }

    let ntag = Target(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], atqa: [0x00, 0x44], sak: 0x00)
    let classic = Target(uid: [0xDE, 0xAD, 0xBE, 0xEF], atqa: [0x00, 0x04], sak: 0x08)
    let vicinity = Target(modulation: .iso15693, uid: [0xE0, 0x02, 0x26, 0x00, 0x00, 0x00, 0x00, 0x01])

    /// After a reset the card must answer GET DATA with the same UID: a type A card whose UID is
    /// another's reversed is another card; only an ISO 15693 UID may come least significant byte first.
    @Test func aReselectTakesOnlyTheSameCard() {
        let uid: [UInt8] = [0x04, 0x2F, 0x19, 0x0A, 0xCD, 0x66, 0x80]
        let typeA = Target(modulation: .iso14443a, uid: uid)
        #expect(PCSCTransport.isSameCard(answering: uid, as: typeA))
        #expect(!PCSCTransport.isSameCard(answering: uid.reversed(), as: typeA))
        let vicinity = Target(modulation: .iso15693, uid: [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78])
        #expect(PCSCTransport.isSameCard(answering: vicinity.uid.reversed(), as: vicinity))
        #expect(!PCSCTransport.isSameCard(answering: [0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x79], as: vicinity))
    }

    @Test func type2ReadAndWriteUseReadAndUpdateBinary() throws {
        let reader = ScriptedReader([Array(0..<16) + [0x90, 0x00], [0x90, 0x00], [0x6A, 0x82]])
        var pending: Int?
        let mapping = reader.mapping(ntag)
        let answer1 = try mapping.transceive([0x30, 0x04], framing: .standard, pendingWrite: &pending)
        #expect(answer1 == Array(0..<16))
        let answer2 = try mapping.transceive([0xA2, 0x05, 1, 2, 3, 4], framing: .standard, pendingWrite: &pending)
        #expect(answer2 == [0x0A])
        #expect(throws: NFCError.commandRefused(command: 0x30, nak: nil)) {
            var none: Int?
            return try mapping.transceive([0x30, 0xF0], framing: .standard, pendingWrite: &none)
        }
        #expect(reader.sent == [[0xFF, 0xB0, 0x00, 0x04, 0x10], [0xFF, 0xD6, 0x00, 0x05, 0x04, 1, 2, 3, 4], [0xFF, 0xB0, 0x00, 0xF0, 0x10]])
    }

    @Test func fastReadIsSplitIntoFourPageReads() throws {
        let reader = ScriptedReader([Array(repeating: 1, count: 16) + [0x90, 0x00], Array(repeating: 2, count: 16) + [0x90, 0x00]])
        var pending: Int?
        let data = try reader.mapping(ntag).transceive([0x3A, 0x00, 0x05], framing: .standard, pendingWrite: &pending)
        #expect(data == Array(repeating: 1, count: 16) + Array(repeating: 2, count: 8))
        #expect(reader.sent == [[0xFF, 0xB0, 0x00, 0x00, 0x10], [0xFF, 0xB0, 0x00, 0x04, 0x10]])
    }

    /// GET_VERSION goes through start session / transceive / end session; the answer is data object 97h.
    @Test func getVersionGoesThroughTheTransparentSession() throws {
        let version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        let reader = ScriptedReader([
            [0x90, 0x00],
            [0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, 0x08] + version + [0x90, 0x00],
            [0x90, 0x00],
        ])
        var pending: Int?
        let answer3 = try reader.mapping(ntag).transceive([0x60], framing: .raw, pendingWrite: &pending)
        #expect(answer3 == version)
        #expect(reader.sent == [
            [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00],
            [0xFF, 0xC2, 0x00, 0x01, 0x07, 0x90, 0x02, 0x00, 0x00, 0x95, 0x01, 0x60],
            [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x82, 0x00],
        ])
    }

    @Test func aFourBitNAKThroughTheSessionIsARefusal() throws {
        let reader = ScriptedReader([[0x90, 0x00], [0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x04, 0x97, 0x01, 0x00, 0x90, 0x00], [0x90, 0x00]])
        let mapping = reader.mapping(ntag)
        #expect(throws: NFCError.commandRefused(command: 0x1B, nak: 0x00)) {
            var none: Int?
            return try mapping.transceive([0x1B, 1, 2, 3, 4], framing: .raw, pendingWrite: &none)
        }
        #expect(reader.sent.last == [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x82, 0x00])
    }

    /// A reader without transparent sessions: `unsupported` naming the reader and the command.
    @Test func aReaderWithoutSessionsSaysSo() throws {
        let reader = ScriptedReader([[0x6A, 0x81]])
        let mapping = reader.mapping(ntag)
        let error = #expect(throws: NFCError.self) {
            var none: Int?
            return try mapping.transceive([0x3C, 0x00], framing: .standard, pendingWrite: &none)
        }
        guard case let .unsupportedOperation(message) = error else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        #expect(message.contains("pcsc:Test Reader 00 00"))
        #expect(message.contains("command 3C"))
    }

    @Test func classicAuthenticatesWithLoadKeyAndGeneralAuthenticate() throws {
        let reader = ScriptedReader([[0x90, 0x00], [0x90, 0x00], [0x90, 0x00], [0x63, 0x00]])
        let mapping = reader.mapping(classic)
        let key: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        try mapping.authenticate(block: 4, keyType: .a, key: key)
        #expect(throws: NFCError.authenticationFailed) { try mapping.authenticate(block: 8, keyType: .b, key: key) }
        #expect(reader.sent == [
            [0xFF, 0x82, 0x00, 0x00, 0x06] + key, [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x00],
            [0xFF, 0x82, 0x00, 0x00, 0x06] + key, [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x08, 0x61, 0x00],
        ])
    }

    /// A Classic WRITE's two halves become one UPDATE BINARY of 16 bytes.
    @Test func classicWriteIsOneUpdateBinary() throws {
        let reader = ScriptedReader([[0x90, 0x00]])
        let mapping = reader.mapping(classic)
        var pending: Int?
        let answer4 = try mapping.transceive([0xA0, 0x05], framing: .standard, pendingWrite: &pending)
        #expect(answer4 == [0x0A])
        #expect(pending == 5)
        let data = [UInt8](repeating: 0x5A, count: 16)
        let answer5 = try mapping.transceive(data, framing: .standard, pendingWrite: &pending)
        #expect(answer5 == [0x0A])
        #expect(pending == nil)
        #expect(reader.sent == [[0xFF, 0xD6, 0x00, 0x05, 0x10] + data])
    }

    /// ISO 15693: plain block reads and writes use P1 P2 as the block number (so blocks above 255 work);
    /// GET SYSTEM INFORMATION and reads with the security status go through the transparent session.
    @Test func vicinityBlocksAndSystemInformation() throws {
        let info: [UInt8] = [0x00, 0x0F] + vicinity.uid.reversed() + [0x00, 0x00, 0xFF, 0x07, 0x03, 0x24]
        let reader = ScriptedReader([
            [1, 2, 3, 4, 0x90, 0x00], [0x90, 0x00], [0x6A, 0x82],
            [0x90, 0x00], [0xC0, 0x03, 0x00, 0x90, 0x00, 0x97, UInt8(info.count)] + info + [0x90, 0x00], [0x90, 0x00],
        ])
        let mapping = reader.mapping(vicinity)
        let uid = vicinity.uid
        #expect(try mapping.send(ISO15693Request(command: 0x30, uid: uid, parameters: [0x01, 0x07])) == [0x00, 1, 2, 3, 4])
        #expect(try mapping.send(ISO15693Request(command: 0x21, uid: uid, parameters: [0x03, 9, 9, 9, 9])) == [0x00])
        #expect(try mapping.send(ISO15693Request(command: 0x20, uid: uid, parameters: [0xFF])) == [0x01, 0x10])
        #expect(try mapping.send(ISO15693Request(command: 0x2B, uid: uid)) == info)
        #expect(reader.sent[0] == [0xFF, 0xB0, 0x07, 0x01, 0x00])
        #expect(reader.sent[1] == [0xFF, 0xD6, 0x00, 0x03, 0x04, 9, 9, 9, 9])
        #expect(reader.sent[4] == PCSCPseudoAPDU.transparentExchange([0x22, 0x2B] + uid.reversed()))
    }

    /// APDUs and native DESFire frames of 4 bytes or more pass unchanged (a native answer of one status
    /// byte comes back as it is); shorter native frames travel wrapped and come back native.
    @Test func isoDEPFramesPassThroughAndShortNativeFramesAreWrapped() throws {
        let reader = ScriptedReader([[0x00], [0x90, 0x00], [0x01, 0x00, 0x00, 0x91, 0x00], [0x91, 0xAE]])
        let mapping = reader.mapping(Target(uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [0x03, 0x44], sak: 0x20))
        #expect(try mapping.passThrough([0x5A, 0x01, 0x00, 0x00]) == [0x00])
        #expect(try mapping.passThrough([0x00, 0xA4, 0x04, 0x00]) == [0x90, 0x00])
        #expect(try mapping.passThrough([0x6A]) == [0x00, 0x01, 0x00, 0x00])
        #expect(try mapping.passThrough([0xF5, 0x02]) == [0xAE])
        #expect(reader.sent == [
            [0x5A, 0x01, 0x00, 0x00], [0x00, 0xA4, 0x04, 0x00], [0x90, 0x6A, 0x00, 0x00, 0x00], [0x90, 0xF5, 0x00, 0x00, 0x01, 0x02, 0x00],
        ])
    }

    @Test func transparentAnswersParse() throws {
        let answer = try PCSCPseudoAPDU.parseTransparentAnswer([0x5F, 0x46, 0x04, 1, 2, 3, 4, 0xC0, 0x03, 0x00, 0x64, 0x01])
        #expect(answer.status == (0x64, 0x01))
        #expect(answer.data.isEmpty)
        #expect(throws: NFCError.invalidResponse([0x97, 0x05, 0x01])) { try PCSCPseudoAPDU.parseTransparentAnswer([0x97, 0x05, 0x01]) }
        #expect(PCSCPseudoAPDU.berLength(200) == [0x81, 200])
        #expect(PCSCPseudoAPDU.atsWithoutLength([0x06, 0x75, 0x77, 0x81, 0x02, 0x80]) == [0x75, 0x77, 0x81, 0x02, 0x80])
    }

    @Test func readerSelectorsResolve() {
        let names = ["ACS ACR1252 1S CL Reader PICC 00 00", "ACS ACR1252 1S CL Reader SAM 00 01"]
        #expect(PCSCSession.resolve(nil, among: names) == names[0])
        #expect(PCSCSession.resolve("1", among: names) == names[1])
        #expect(PCSCSession.resolve("ACS ACR1252 1S CL Reader PICC", among: names) == names[0])
        #expect(PCSCSession.resolve("ACS", among: names) == nil)
        #expect(PCSCSession.resolve("2", among: names) == nil)
        #expect(PCSCDevice.selector(of: "pcsc:0") == "0")
        #expect(PCSCDevice.selector(of: "pcsc") == nil)
        #expect(PCSCDevice.accepts("pcsc:Virtual PCD 00 00"))
        #expect(!PCSCDevice.accepts("pcsc_uart:/dev/x"))
    }
}

/// How the backend tells a type B ISO-DEP card from a type A one and completes a FeliCa target
/// (``PCSCCardIdentification``), on the answers a reader gives.
@Suite struct PCSCCardIdentificationTests {
    let pupi: [UInt8] = [0x1A, 0x2B, 0x3C, 0x4D]
    /// ATQB application data 00 E2 AF 01, protocol info 00 81 75, MBLI 0.
    let typeBHistorical: [UInt8] = [0x00, 0xE2, 0xAF, 0x01, 0x00, 0x81, 0x75, 0x00]

    @Test func aTypeBATRWithAPUPIAndNoATSIsATypeBCard() throws {
        let target = try #require(PCSCCardIdentification.typeBTarget(historicalBytes: typeBHistorical, uid: pupi, ats: nil))
        #expect(target.modulation == .iso14443b)
        #expect(target.uid == pupi)
        #expect(target.applicationData == [0x00, 0xE2, 0xAF, 0x01])
        #expect(target.protocolInfo == [0x00, 0x81, 0x75])
        #expect(target.speaksISODEPOverB)
        // A reader answering `FF CA 01` with an empty higher-layer response gives no ATS either.
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: typeBHistorical, uid: pupi, ats: [])?.uid == pupi)
    }

    @Test func typeACardsStayTypeA() {
        // The reader gave an ATS: only a type A card has one.
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: typeBHistorical, uid: pupi, ats: [0x78, 0x77, 0x81, 0x02]) == nil)
        // A 7-byte UID is no PUPI.
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: typeBHistorical, uid: [0x04, 1, 2, 3, 4, 5, 6], ats: nil) == nil)
        // DESFire's one historical byte (80h), a JCOP's fifteen.
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: [0x80], uid: pupi, ats: nil) == nil)
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: Array(repeating: 0x80, count: 15), uid: pupi, ats: nil) == nil)
        // Byte 8's low nibble is 0 in a B ATR; Protocol_Type b1 is 1 for an ISO-DEP B card.
        var oddLastByte = typeBHistorical
        oddLastByte[7] = 0x01
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: oddLastByte, uid: pupi, ats: nil) == nil)
        var notISODEP = typeBHistorical
        notISODEP[5] = 0x80
        #expect(PCSCCardIdentification.typeBTarget(historicalBytes: notISODEP, uid: pupi, ats: nil) == nil)
    }

    @Test func aFeliCaPollingAnswerGivesPMmAndSystemCode() throws {
        let idm: [UInt8] = [0x01, 0x2E, 0x3D, 0x23, 0xBA, 0x07, 0x5C, 0x45]
        let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
        let felica = Target(modulation: .felica212, uid: idm)
        let completed = try #require(PCSCCardIdentification.felicaTarget(felica, pollingAnswer: [0x01] + idm + pmm + [0x88, 0xB4]))
        #expect(completed.pmm == pmm)
        #expect(completed.systemCode == [0x88, 0xB4])
        #expect(completed.uid == idm && completed.modulation == .felica212)
        // Request code 00 answers no system code; another card's IDm or another response code is no answer.
        #expect(PCSCCardIdentification.felicaTarget(felica, pollingAnswer: [0x01] + idm + pmm)?.systemCode == [])
        #expect(PCSCCardIdentification.felicaTarget(felica, pollingAnswer: [0x01] + idm.reversed() + pmm + [0x88, 0xB4]) == nil)
        #expect(PCSCCardIdentification.felicaTarget(felica, pollingAnswer: [0x07] + idm + pmm) == nil)
        #expect(PCSCCardIdentification.felicaTarget(felica, pollingAnswer: [0x01] + idm) == nil)
    }

    /// The Polling goes as NFCCore's FeliCa frames do: LEN added, through the transparent session.
    @Test func thePollingTravelsThroughTheTransparentSessionWithItsLength() throws {
        let idm: [UInt8] = [0x01, 0x2E, 0x3D, 0x23, 0xBA, 0x07, 0x5C, 0x45]
        let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
        let answer: [UInt8] = [0x14, 0x01] + idm + pmm + [0x88, 0xB4]
        let reader = PCSCMappingTests.ScriptedReader([
            [0x90, 0x00],
            [0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x00, 0x97, 0x14] + answer + [0x90, 0x00],
            [0x90, 0x00],
        ])
        var pending: Int?
        let felica = Target(modulation: .felica212, uid: idm)
        let frame = try reader.mapping(felica).transceive(PCSCCardIdentification.felicaPolling, framing: .standard, pendingWrite: &pending)
        #expect(frame == Array(answer.dropFirst()))
        #expect(reader.sent[1] == [0xFF, 0xC2, 0x00, 0x01, 0x0C, 0x90, 0x02, 0x00, 0x00, 0x95, 0x06, 0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00])
    }

    /// pcscd closing a client's connection ("Access denied.", a polkit refusal or a daemon shutting
    /// down) is the reader unavailable, not an RF error; a call that meets a stopped daemon likewise.
    @Test func aDaemonThatClosesTheConnectionIsTheReaderUnavailable() {
        for code in [SCARD_W_SECURITY_VIOLATION, SCARD_E_NO_SERVICE, SCARD_F_COMM_ERROR] {
            let error = PCSCReturnCode(code).nfcError(reader: "pcsc:0", call: "SCardGetStatusChange")
            guard case .readerUnavailable(let message) = error else {
                Issue.record("\(code) became \(error)")
                continue
            }
            #expect(message.contains("pcscd"), "\(message)")
        }
        #expect(PCSCReturnCode(SCARD_E_NOT_TRANSACTED).nfcError(reader: "pcsc:0", call: "SCardTransmit").code == "rf_error")
    }
}
