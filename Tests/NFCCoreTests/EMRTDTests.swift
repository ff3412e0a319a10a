import NFCCore
import Testing

/// eMRTDs (ICAO 9303) are identified and reported, never read: the whole scan — identify, NDEF, dump,
/// and the refused write — sends the passport exactly the three refinement probes, of which only the
/// SELECT of the LDS application `A0000002471001` is an eMRTD command (no GET CHALLENGE, no READ BINARY,
/// no MUTUAL AUTHENTICATE: nothing that could count against the chip's access attempts).
@Suite struct EMRTDTests {
    /// A passport: ISO 14443-4 (SAK 20), the LDS application selects, nothing else exists (6A82), and
    /// proprietary CLA 90 is refused (6E00) — ICAO 9303-10 §3.6.
    func passport() -> ScriptedAPDUTransport {
        ScriptedAPDUTransport(
            target: Target(uid: [0x08, 0x5A, 0x3C, 0x11], atqa: [0x00, 0x04], sak: 0x20, ats: [0x78, 0x80, 0x70, 0x02]), [
                ("9060000000", .bytes("6E00")),
                ("00A4040007D276000085010100", .bytes("6A82")),
                ("00A4040C07A0000002471001", .bytes("9000")),
            ])
    }

    @Test func aScanSendsOnlyTheRefinementProbes() async throws {
        let transport = passport()
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == .ePassport)
        #expect(info.type.family == .passport)
        #expect(info.probes == ["DESFire GET_VERSION: 6E00", "Type 4 CC: 6A82", "SELECT eMRTD: ok"])

        let ndef = try await NDEFReader.read(info: info, transport: transport)
        guard case let .notRead(error) = ndef else {
            Issue.record("an eMRTD's NDEF must not be read: \(ndef)")
            return
        }
        #expect(error.code == "unsupported")

        do {
            _ = try await TagDumper.dump(info: info, transport: transport)
            Issue.record("an eMRTD dump must be refused")
        } catch let error as NFCError {
            #expect(error.code == "unsupported")
            #expect(error == .unsupportedOperation(EMRTDFamily.refusal))
            #expect(error.message.contains("BAC") && error.message.contains("PACE"))
        }
        await #expect(throws: TagOperationError(NFCError.unsupportedOperation("NDEF operations are not supported for ePassport (eMRTD)"))) {
            try await TagOperations.write(ndef: [0xD0, 0x00, 0x00], to: transport, info: info)
        }

        // Byte for byte, everything the passport received.
        #expect(transport.sentAPDUs.map(\.hexString) == ["9060000000", "00A4040007D276000085010100", "00A4040C07A0000002471001"])
        #expect(!transport.sentAPDUs.contains { $0.count > 1 && [0x84, 0x82, 0x86, 0xB0, 0xB1].contains($0[1]) })
        transport.verifyAllConsumed()
    }

    @Test func theRefusalNamesTheAccessProtocols() {
        #expect(EMRTDFamily.refusal.contains("BAC or PACE"))
        #expect(TagFamilies.family(for: .ePassport)?.name == "eMRTD")
    }
}
