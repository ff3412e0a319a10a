import CNFC
import Foundation
import NFCCore
import Testing

@testable import LibNFCReader
@testable import PN532Sim

/// The parts of the libnfc backend that need no reader: software framing, error mapping, the
/// job thread, and opening a device that is not there.
@Suite struct LibNFCReaderUnitTests {
    // MARK: Raw ISO 14443-A frames (software CRC_A, 4-bit replies)

    // MARK: InAutoPoll (UM0701-02 §7.3.13)

    @Test func autoPollAnswersRead() throws {
        #expect(LibNFCAutoPoll.answer([0x00]) == .nothing)
        #expect(LibNFCAutoPoll.answer([]) == .garbled)
        #expect(LibNFCAutoPoll.answer([0x01, 0x10, 0x0C, 0x01]) == .garbled)  // Len 0Ch, 1 byte of data
        // An NTAG: Tg 01, SENS_RES 00 44, SEL_RES 00, 7-byte NFCID1.
        let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
        let data: [UInt8] = [0x01, 0x00, 0x44, 0x00, 0x07] + uid
        #expect(LibNFCAutoPoll.answer([0x01, 0x10, 0x0C] + data) == .target(type: 0x10, data: data))
        let ntag = try #require(LibNFCAutoPoll.typeATarget(data))
        #expect(ntag.uid == uid && ntag.atqa == [0x00, 0x44] && ntag.sak == 0x00 && ntag.ats.isEmpty)
        // An ISO-DEP tag found as type 20h: its ATS comes with TL, kept without it (as libnfc does).
        let isoDEP: [UInt8] = [0x01, 0x03, 0x44, 0x20, 0x07] + uid + [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]
        let t4 = try #require(LibNFCAutoPoll.typeATarget(isoDEP))
        #expect(t4.ats == [0x75, 0x77, 0x81, 0x02, 0x80] && t4.isISODEP)
        // A UID length that ISO/IEC 14443-3 has not, or an ATS longer than the data.
        #expect(LibNFCAutoPoll.typeATarget([0x01, 0x00, 0x44, 0x00, 0x05, 1, 2, 3, 4, 5]) == nil)
        #expect(LibNFCAutoPoll.typeATarget([0x01, 0x00, 0x44, 0x20, 0x04, 1, 2, 3, 4, 0x09, 0x75]) == nil)
        #expect(LibNFCAutoPoll.typeATarget([0x01, 0x00, 0x44]) == nil)
    }

    @Test func autoPollTypesCoverTypeAAndFeliCaOnly() {
        #expect(LibNFCAutoPoll.types(for: .iso14443a) == [0x20, 0x10])
        #expect(LibNFCAutoPoll.types(for: .felica212) == [0x11])
        #expect(LibNFCAutoPoll.types(for: .felica424) == [0x12])
        #expect(LibNFCAutoPoll.types(for: .iso14443b) == nil)
        #expect(LibNFCAutoPoll.modulation(ofType: 0x20, among: [.felica212, .iso14443a]) == .iso14443a)
        #expect(LibNFCAutoPoll.modulation(ofType: 0x12, among: [.iso14443a, .felica212]) == nil)
    }

    @Test func getVersionFrameCarriesCRCA() {
        // libnfc's nfc-mfultralight sends GET_VERSION raw as 60 F8 32.
        #expect(RawFrameCodec.appendingCRCA([0x60]) == [0x60, 0xF8, 0x32])
    }

    @Test func rawAnswerWithGoodCRCIsStripped() throws {
        let version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        let answer = try RawFrameCodec.decodeRawAnswer(version + ISO14443.crcA(version))
        #expect(answer == .data(version))
    }

    @Test func rawAnswerWithBadCRCIsRejected() {
        #expect(throws: NFCError.crcMismatch) { try RawFrameCodec.decodeRawAnswer([0x00, 0x04, 0x00, 0x00]) }
    }

    @Test func singleByteIsAFourBitReply() throws {
        #expect(try RawFrameCodec.decodeRawAnswer([0x0A]) == .ack)
        #expect(try RawFrameCodec.decodeRawAnswer([0x00]) == .nak(0x0))
        #expect(try RawFrameCodec.decodeRawAnswer([0x04]) == .nak(0x4))
    }

    @Test func twoBytesAreNeitherAFrameNorAFourBitReply() {
        #expect(throws: NFCError.invalidResponse([0x01, 0x02])) { try RawFrameCodec.decodeRawAnswer([0x01, 0x02]) }
    }

    // MARK: FeliCa LEN byte

    @Test func feliCaLengthIsAddedAndChecked() throws {
        let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0x6D, 0x00, 0x00, 0x00, 0x01]
        #expect(try RawFrameCodec.feliCaFrame([0x04] + idm) == [0x0A, 0x04] + idm)
        #expect(try RawFrameCodec.feliCaPayload([0x0B, 0x05] + idm + [0x00]) == [0x05] + idm + [0x00])
        #expect(throws: NFCError.invalidResponse([0x05, 0x05])) { try RawFrameCodec.feliCaPayload([0x05, 0x05]) }
        #expect(throws: NFCError.self) { try RawFrameCodec.feliCaFrame([]) }
    }

    // MARK: libnfc error codes

    @Test func libnfcCodesMapOnce() {
        let map = { (code: Int32) in LibNFCErrorCode(rawValue: code).nfcError(connstring: "pn532_uart:/dev/x", call: "f") }
        #expect(map(NFC_ETIMEOUT) == .timeout)
        #expect(map(NFC_ETGRELEASED) == .tagRemoved)
        #expect(map(NFC_EOPABORTED) == .userCanceled)
        #expect(map(NFC_EMFCAUTHFAIL) == .authenticationFailed)
        #expect(map(NFC_EIO).code == "reader_unavailable")
        #expect(map(NFC_EIO).message.contains("pn532_uart:/dev/x"))
        #expect(map(NFC_ENOTSUCHDEV).code == "reader_unavailable")
        #expect(map(NFC_ERFTRANS) == .rfError("f: NFC_ERFTRANS (RF transmission error)"))
        #expect(map(NFC_EDEVNOTSUPP).code == "unsupported")
        #expect(map(-12345).code == "rf_error")
    }

    @Test func timeoutsNeverMeanWaitForever() {
        #expect(Duration.zero.libnfcMilliseconds == 1)
        #expect(Duration.milliseconds(350).libnfcMilliseconds == 350)
        #expect(Duration.seconds(1_000_000_000).libnfcMilliseconds == Int32.max)
    }

    // MARK: Thread and device

    @Test func jobsRunInOrderOffTheCallingThread() async throws {
        let thread = LibNFCThread(libNFCName: "libnfc-test")
        defer { thread.stop() }
        let names = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<5 {
                group.addTask { (index, try await thread.run { kernelThreadName() }) }
            }
            return try await group.reduce(into: [String]()) { $0.append($1.1) }
        }
        #expect(names == Array(repeating: "libnfc-test", count: 5))
        await #expect(throws: NFCError.timeout) { try await thread.run { throw NFCError.timeout } }
    }

    /// A task that prefers the thread (a one-shot command, issue 25) runs its own code there, and
    /// `run` from there calls the body at once: the body sees the task's thread, no hop between.
    @Test func aTaskPreferringTheThreadRunsItsCallsInline() async throws {
        let thread = LibNFCThread(libNFCName: "libnfc-pref")
        defer { thread.stop() }
        let names = try await Task(executorPreference: thread) {
            let own = kernelThreadName()
            let inline = try await thread.run { (kernelThreadName(), thread.isCurrent) }
            return (own, inline.0, inline.1)
        }.value
        #expect(names.0 == "libnfc-pref" && names.1 == "libnfc-pref" && names.2)
        #expect(!thread.isCurrent)
        await #expect(throws: NFCError.timeout) {
            try await Task(executorPreference: thread) { try await thread.run { throw NFCError.timeout } }.value
        }
    }

    @Test func openingAMissingPortNamesTheConnstring() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-tty-\(UUID().uuidString)").path
        let device = LibNFCDevice(connstring: "pn532_uart:\(path)")
        do {
            _ = try await device.open()
            Issue.record("opening \(path) succeeded")
        } catch let error as NFCError {
            #expect(error.code == "reader_unavailable")
            #expect(error.message.contains("pn532_uart:\(path)"))
            #expect(error.message.contains("\(path) does not exist"), "\(error)")
            #expect(!error.message.contains("no PN53x answered"), "\(error)")
        }
        // Not open: polling reports the reader, closing is harmless.
        await #expect(throws: NFCError.self) { try await device.poll(modulations: [.iso14443a], timeout: .zero) }
        await device.close()
    }

    // MARK: A reader that does not answer

    @Test func aPortWhereNoChipAnswersIsUnresponsiveNotAbsent() async throws {
        // A pty nobody answers on (the simulator's, without the simulator): the port is there,
        // the PN532 is silent.
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString).tty").path
        let terminal = try PseudoTerminal(linkPath: link)
        defer { terminal.close() }
        let slave = terminal.linkPath
        let device = LibNFCDevice(connstring: "pn532_uart:\(slave)")
        do {
            _ = try await device.open()
            Issue.record("opening \(slave) succeeded")
        } catch let error as NFCError {
            #expect(error.code == "reader_unresponsive", "\(error)")
            #expect(error.message.contains("pn532_uart:\(slave)") && error.message.contains("no PN53x answered"), "\(error)")
        }
        #expect(LibNFCSession.serialPort(of: "pn532_uart:/dev/ttyS0:115200") == "/dev/ttyS0")
        #expect(LibNFCSession.serialPort(of: "pn533_usb:001:004") == nil)
        #expect(LibNFCSession.serialPort(of: nil) == nil)
    }

    @Test func aPortThatIsNotASerialPortIsNamedAsSuch() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-tty-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(LibNFCSession.portProblem(file) == "\(file) is not a serial port (not a character device)")
        #expect(LibNFCSession.portProblem("/dev/null") == nil)
    }

    @Test func aCallPastItsDeadlineIsMarkedExpiredAndOneInTimeIsNot() {
        let control = LibNFCAbortControl()
        defer { control.stopMonitor() }
        let token = CancelToken()
        // The body returns only once the deadline thread has fired: no race with the clock.
        let late = control.call(.command(token), deadline: .milliseconds(20)) { () -> Int32 in
            while !control.hasExpired { usleep(1000) }
            return NFC_EOPABORTED
        }
        #expect(late.expired)
        #expect(late.result == NFC_EOPABORTED)
        let inTime = control.call(.command(token), deadline: .seconds(60)) { () -> Int32 in 0 }
        #expect(!inTime.expired)
        #expect(inTime.result == 0)
    }
}

/// The calling thread's kernel name (what `top -H` shows).
private func kernelThreadName() -> String {
    var buffer = [CChar](repeating: 0, count: 16)
    guard cnfc_get_thread_name(&buffer) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension LibNFCReaderUnitTests {
    // MARK: The libnfc rows of the technology table

    /// libnfc polls every technology but ISO 15693, with the modulation and initiator data of its
    /// `prepare_initiator_data`; only type A tags are deselected to find more.
    @Test func libnfcHasARowForEveryModulationButISO15693() {
        let rows = Modulation.allCases.map { ($0, LibNFCModulation.row(for: $0)) }
        #expect(rows.filter { $0.1 == nil }.map(\.0) == [.iso15693])
        #expect(LibNFCDevice.unsupportedPolling(of: Modulation.allCases.filter { $0 != .iso15693 }) == nil)
        #expect(LibNFCDevice.unsupportedPolling(of: [.jewel, .iso15693])?.message.hasPrefix(
            "the libnfc backend cannot poll iso15693:") == true)
        #expect(LibNFCModulation.row(for: .jewel)?.libnfc.nmt == NMT_JEWEL)
        #expect(LibNFCModulation.row(for: .felica424)?.libnfc.nbr == NBR_424)
        #expect(LibNFCModulation.row(for: .felica212)?.pollData == [0x00, 0xFF, 0xFF, 0x01, 0x00])
        #expect(Modulation.allCases.filter { LibNFCModulation.row(for: $0)?.findsSeveral == true } == [.iso14443a])
        let target = Target(uid: [0x04, 0x11, 0x22, 0x33])
        #expect(LibNFCModulation.row(for: .iso14443a)?.selectData.bytes(for: target) == target.uid)
        #expect(LibNFCModulation.row(for: .iso14443b)?.selectData.bytes(for: target) == [0x00])
    }

    /// A Jewel target as libnfc decodes it (`nfc_jewel_info`): SENS_RES kept as the ATQA, RID's UID.
    @Test func decodesAJewelTarget() throws {
        var selected = nfc_target()
        selected.nti.nji.btSensRes = (0x0C, 0x00)
        selected.nti.nji.btId = (0x92, 0x3E, 0x4A, 0x11)
        let target = try #require(Target(libnfc: selected, modulation: .jewel))
        #expect(target.modulation == .jewel && target.uid == [0x92, 0x3E, 0x4A, 0x11] && target.atqa == [0x0C, 0x00])
        #expect(target.sak == nil)
        #expect(Target(libnfc: selected, modulation: .iso15693) == nil)
    }
}
