import NFCCore
import PN532Sim
import Testing

/// Setting a PWD_AUTH password on virtual Type 2 tags (NTAG213/215/216 §8.8, MF0ULX1 §8.8, NTAG210/212
/// §8.8): the pages written and their order, what the tag holds and enforces afterwards, and the
/// refusals that write nothing.
@Suite struct Type2PasswordProtectTests {
    static let password = Type2Password(name: "station", password: SecretBytes([0x5A, 0x11, 0xC0, 0xDE]), pack: [0xBE, 0xEF])

    static func settings(auth0: Int = 4, reads: Bool = false) -> Type2PasswordProtect.Settings {
        Type2PasswordProtect.Settings(password: password, auth0: auth0, protectsReads: reads)
    }

    /// Per product: CFG0 (AUTH0 in byte 3), then CFG1, PWD, PACK follow it (the datasheets' memory maps).
    static let products: [(VirtualType2Model, configPage: Int)] = [
        (.ultralightEV1_11, 0x10), (.ultralightEV1_21, 0x25), (.ntag210, 0x10), (.ntag212, 0x25),
        (.ntag213, 0x29), (.ntag215, 0x83), (.ntag216, 0xE3),
    ]

    @Test(arguments: products)
    func protectsEveryPasswordProduct(model: VirtualType2Model, configPage: Int) async throws {
        let fixture = try await Type2OperationFixture(model)
        let report = try await TagOperations.protect(fixture.transport, info: fixture.info,
                                                     expectedUID: Type2OperationFixture.uid, settings: Self.settings())
        // PWD and PACK first, then ACCESS, AUTH0 last.
        let order = [configPage + 2, configPage + 3, configPage + 1, configPage]
        #expect(fixture.writeCommandPages == order)
        #expect(report.pagesWritten == order)
        #expect(fixture.page(configPage + 2) == [0x5A, 0x11, 0xC0, 0xDE])
        #expect(fixture.page(configPage + 3) == [0xBE, 0xEF, 0x00, 0x00])
        #expect(fixture.page(configPage)[3] == 4)
        #expect(fixture.page(configPage + 1)[0] & 0x80 == 0)
        #expect(report.auth0 == 4 && !report.protectsReads && report.keyName == "station")
        // Never the password in what the report shows.
        #expect(!String(describing: report).contains("90, 17, 192, 222"))  // 5A 11 C0 DE as decimal bytes
        #expect(!String(describing: report).lowercased().contains("5a11c0de"))

        // The tag now refuses a write without the password (a new selection: this one is still
        // authenticated by the protect's PWD_AUTH) and takes one with it.
        try await fixture.transport.reselect()
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.write(ndef: ndefMessage(length: 10), to: fixture.transport, info: fixture.info)
        }
        #expect(error?.error == .authenticationRequired)
        _ = try await TagOperations.write(ndef: ndefMessage(length: 10), to: fixture.transport, info: fixture.info,
                                          password: [0x5A, 0x11, 0xC0, 0xDE])
        #expect(fixture.storedMessage == ndefMessage(length: 10))
    }

    @Test func protectReadsSetsPROTAndTheTagRefusesReads() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        let report = try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                                     settings: Self.settings(auth0: 0x10, reads: true))
        #expect(report.protectsReads)
        #expect(fixture.page(0x2A)[0] & 0x80 == 0x80)
        // A fresh session (no PWD_AUTH) cannot READ page 10h (NTAG213/215/216 §8.8.2).
        let fresh = VirtualTagTransport(tag: fixture.tag)
        await #expect(throws: (any Error).self) { try await Type2Command.read(page: 0x10).send(via: fresh) }
        // Below AUTH0 stays readable (after the re-select a NAK calls for: the tag fell back to IDLE).
        try await fresh.reselect()
        let low = try await Type2Command.read(page: 0x04).send(via: fresh)
        #expect(low.count == 16)
    }

    @Test func aProductWithoutPWDAUTHIsRefused() async throws {
        for model in [VirtualType2Model.ultralight, .ultralightC, .ntag203] {
            let fixture = try await Type2OperationFixture(model)
            let error = await operationError { () async throws(TagOperationError) in
                try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                                settings: Self.settings())
            }
            guard case .unsupportedOperation? = error?.error else {
                Issue.record("\(model): \(String(describing: error))")
                continue
            }
            #expect(fixture.writeCommandPages.isEmpty)
        }
    }

    @Test func aTagProtectedByAnotherPasswordIsRefusedUntouched() async throws {
        let fixture = try await Type2OperationFixture(.ntag215) { tag in
            tag.setPassword([1, 2, 3, 4], pack: [0, 0])
            tag.setAuth0(0x10)
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                            settings: Self.settings())
        }
        #expect(error?.error == .authenticationRequired)
        #expect(fixture.writeCommandPages.isEmpty)
        #expect(fixture.page(0x85) == [1, 2, 3, 4])
    }

    @Test func protectingAgainWithTheSameSettingsWritesNothing() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        _ = try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                            settings: Self.settings(reads: true))
        let writes = fixture.writeCommandPages.count
        let again = try await TagOperations.protect(VirtualTagTransport(tag: fixture.tag), info: fixture.info,
                                                    expectedUID: Type2OperationFixture.uid, settings: Self.settings(reads: true))
        #expect(again.pagesWritten.isEmpty)
        #expect(fixture.writeCommandPages.count == writes)
        // Other settings on a tag already protected: refused.
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.protect(VirtualTagTransport(tag: fixture.tag), info: fixture.info,
                                            expectedUID: Type2OperationFixture.uid, settings: Self.settings(auth0: 8, reads: true))
        }
        #expect(error?.error == .authenticationRequired)
    }

    @Test func aFrozenConfigurationIsRefused() async throws {
        let fixture = try await Type2OperationFixture(.ntag213) { tag in
            var memory = tag.memory
            memory[0x2A * 4] |= 0x40  // CFGLCK
            tag.memory = memory
        }
        let error = await operationError { () async throws(TagOperationError) in
            try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                            settings: Self.settings())
        }
        #expect(error?.error == .tagLocked)
        #expect(fixture.writeCommandPages.isEmpty)
    }

    @Test func badArgumentsAndAnotherTagAreRefused() async throws {
        let fixture = try await Type2OperationFixture(.ntag213)
        for auth0 in [2, 45] {
            let error = await operationError { () async throws(TagOperationError) in
                try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: Type2OperationFixture.uid,
                                                settings: Self.settings(auth0: auth0))
            }
            guard case .invalidArgument? = error?.error else {
                Issue.record("AUTH0 \(auth0): \(String(describing: error))")
                continue
            }
        }
        let mismatch = await operationError { () async throws(TagOperationError) in
            try await TagOperations.protect(fixture.transport, info: fixture.info, expectedUID: [1, 2, 3, 4, 5, 6, 7],
                                            settings: Self.settings())
        }
        guard case .tagMismatch? = mismatch?.error else {
            Issue.record("\(String(describing: mismatch))")
            return
        }
        #expect(fixture.writeCommandPages.isEmpty)
    }
}
