import NFCCore
import PN532Sim
import Testing

@Suite struct IdentificationTests {
    static let uid: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]

    @Test(arguments: [
        (VirtualType2Model.ultralight, CardType.mifareUltralight),
        (.ultralightC, .mifareUltralightC),
        (.ultralightEV1_11, .mifareUltralightEV1_MF0UL11),
        (.ultralightEV1_21, .mifareUltralightEV1_MF0UL21),
        (.ntag203, .ntag203),
        (.ntag210, .ntag210),
        (.ntag212, .ntag212),
        (.ntag213, .ntag213),
        (.ntag215, .ntag215),
        (.ntag216, .ntag216),
    ])
    func identifiesEveryVirtualProduct(model: VirtualType2Model, expected: CardType) async throws {
        let transport = VirtualTagTransport(tag: VirtualType2Tag(model: model, uid: Self.uid))
        let info = try await TagIdentifier.identify(transport)
        #expect(info.type == expected)
        #expect(info.uid == Self.uid)
        #expect(info.atqa == [0x00, 0x44])
        #expect(info.sak == 0x00)
        #expect(info.version == model.version)
        // The tag is ACTIVE afterwards: a READ works.
        #expect(try await Type2Command.read(page: 0, from: transport).count == 16)
    }
}
