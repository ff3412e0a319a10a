import NFCCore
import PN532Sim
import Testing

/// NFCCore's AuthenticateISO (1Ah, 2K3DES / 3K3DES), legacy Authenticate (0Ah) and
/// AuthenticateEV2NonFirst (77h), each with its secure messaging, against the simulator's virtual
/// DESFire, whose implementation of the same datasheet steps is its own (PN532Sim's
/// VirtualDESFireSecurity on libcrypto blocks, nothing from NFCCore). The published vectors of each
/// step are in DESFireLegacyAuthenticationTests, DESFireSecureMessagingTests and
/// DESFireEV2AuthenticationTests; these check that two independent implementations agree end to end.
@Suite struct DESFireSimulatedAuthenticationTests {
    typealias V = VirtualDESFireTag
    static let uid: [UInt8] = [0x04, 0x2F, 0x19, 0x0A, 0xCD, 0x66, 0x80]
    static let twoKey: [UInt8] = [UInt8](hex: "00102031405060708090A0B0B0A09080") ?? []
    static let threeKey: [UInt8] = [UInt8](hex: "00102031405060708090A0B0B0A090807060504030201000") ?? []
    static let secret: [UInt8] = Array(0..<40).map { UInt8($0 * 7 & 0xFF) }

    /// Application 563412 (card order) whose key 1 is `key` (of `type`): file 01 fully enciphered and
    /// file 02 MACed, both read by key 1; file 03 fully enciphered, read by key 2.
    static func card(_ model: V.Model, type: V.KeyType, key: [UInt8], second: [UInt8]? = nil) throws -> VirtualTagTransport {
        let app = V.Application(aid: [0x56, 0x34, 0x12], files: [
            V.File(id: 0x01, communication: 0x03, read: 0x01, readWrite: 0x01, contents: .standard(secret)),
            V.File(id: 0x02, communication: 0x01, read: 0x01, readWrite: 0x01, contents: .standard(Array(secret.prefix(12)))),
            V.File(id: 0x03, communication: 0x03, read: 0x02, readWrite: 0x02, contents: .standard(Array(secret.suffix(20)))),
        ], keys: [1: key, 2: second ?? key], keyType: type)
        return VirtualTagTransport(tag: try V(uid: uid, model: model, applications: [app]))
    }

    static func keys(_ cipher: DESFireKey.Cipher, _ key: [UInt8], number: UInt8 = 1) -> DESFireKeys {
        DESFireKeys([DESFireKey(name: "door", application: [0x56, 0x34, 0x12], keyNumber: number, cipher: cipher, key: SecretBytes(key))])
    }

    @Test(arguments: [(V.Model.ev1, V.KeyType.tdes2k), (.ev2, .tdes2k), (.ev1, .tdes3k), (.ev3, .tdes3k)])
    func authenticateISOReadsEnciphered3DESFiles(model: V.Model, type: V.KeyType) async throws {
        let key = type == .tdes2k ? Self.twoKey : Self.threeKey
        let transport = try Self.card(model, type: type, key: key)
        let version = try await DESFireVersion.read(transport: transport)
        let cipher: DESFireKey.Cipher = type == .tdes2k ? .tdes2k : .tdes3k
        for (file, expected) in [(UInt8(1), Self.secret), (2, Array(Self.secret.prefix(12)))] {
            let read = try await DESFireDumper.readFile(transport: transport, version: version, application: [0x56, 0x34, 0x12], file: file,
                                                        keys: Self.keys(cipher, key))
            #expect(read.content == .data(expected), "\(model) \(type) file \(file): \(read.skipReason ?? "")")
            #expect(read.authentications.first?.method == "AuthenticateISO")
        }
        // A range of the enciphered file: only those bytes are asked for.
        let part = try await DESFireDumper.readFile(transport: transport, version: version, application: [0x56, 0x34, 0x12], file: 1,
                                                    keys: Self.keys(cipher, key), range: 3..<19)
        #expect(part.content == .data(Array(Self.secret[3..<19])))
        var wrong = key
        wrong[0] ^= 0x80
        let refused = try await DESFireDumper.readFile(transport: transport, version: version, application: [0x56, 0x34, 0x12], file: 1,
                                                       keys: Self.keys(cipher, wrong))
        #expect(refused.content == nil)
        guard case let .failed(code, _)? = refused.authentications.first?.outcome else { Issue.record("not refused"); return }
        #expect(code == "auth_failed")
    }

    /// A single-DES key (K1 = K2) through AuthenticateISO: both sides make the DES session key.
    @Test func authenticateISOWithADESKey() async throws {
        let des = [UInt8](hex: "0011223344556677" + "0011223344556677") ?? []
        let transport = try Self.card(.ev2, type: .tdes2k, key: des)
        let version = try await DESFireVersion.read(transport: transport)
        let read = try await DESFireDumper.readFile(transport: transport, version: version, application: [0x56, 0x34, 0x12], file: 1,
                                                    keys: Self.keys(.tdes2k, des))
        #expect(read.content == .data(Self.secret), "\(read.skipReason ?? "")")
    }

    /// The legacy Authenticate on an EV1 2K3DES application, then D40 secure messaging: a fully
    /// enciphered ReadData (CRC16) and a MACed one (4-byte MAC), both checked.
    @Test func legacyAuthenticateReadsWithD40Messaging() async throws {
        let transport = try Self.card(.ev1, type: .tdes2k, key: Self.twoKey)
        let channel = DESFireChannel(transport: transport, framing: .native)
        _ = try await channel.command(0x5A, [0x56, 0x34, 0x12])
        var session = try await DESFireLegacyAuthentication.authenticate(
            keyNumber: 1, key: Self.twoKey, rndA: DESFireDumper.randomChallenge(), channel: channel)
        let whole: [UInt8] = [0, 0, 0, 0, 0, 0]
        let full = try await channel.command(0xBD, try session.command(0xBD, header: [0x01] + whole, mode: .full))
        #expect(try session.response(full, mode: .full, expectedLength: Self.secret.count) == Self.secret)
        let maced = try await channel.command(0xBD, try session.command(0xBD, header: [0x02] + whole, mode: .mac))
        #expect(try session.response(maced, mode: .mac) == Array(Self.secret.prefix(12)))
        // Another key: the card refuses the proof.
        _ = try await channel.command(0x5A, [0x56, 0x34, 0x12])
        var wrong = Self.twoKey
        wrong[3] ^= 0x10
        await #expect(throws: NFCError.authenticationFailed) {
            try await DESFireLegacyAuthentication.authenticate(keyNumber: 1, key: wrong, rndA: DESFireDumper.randomChallenge(), channel: channel)
        }
    }

    /// Two AES keys of one EV2 application: the dump opens the first with AuthenticateEV2First and the
    /// second with AuthenticateEV2NonFirst inside the same transaction; both keys' enciphered files read.
    @Test(arguments: [V.Model.ev2, .ev3])
    func aSecondKeyContinuesWithEV2NonFirst(model: V.Model) async throws {
        let first: [UInt8] = Array(repeating: 0x11, count: 16)
        let second: [UInt8] = Array(repeating: 0x22, count: 16)
        let transport = try Self.card(model, type: .aes, key: first, second: second)
        let keys = DESFireKeys([
            DESFireKey(name: "door", application: [0x56, 0x34, 0x12], keyNumber: 1, cipher: .aes, key: SecretBytes(first)),
            DESFireKey(name: "audit", application: [0x56, 0x34, 0x12], keyNumber: 2, cipher: .aes, key: SecretBytes(second)),
        ])
        let dump = try await DESFireDumper.dump(transport: transport, keys: keys)
        #expect(dump.authentications.map(\.method) == ["AuthenticateEV2First", "AuthenticateEV2NonFirst"], "\(dump.authentications)")
        #expect(dump.authentications.map(\.filesRead) == [["563412/01", "563412/02"], ["563412/03"]])
        let files = dump.applications.first?.files ?? []
        #expect(files.first { $0.id == 3 }?.content == .data(Array(Self.secret.suffix(20))))
        #expect(files.first { $0.id == 1 }?.content == .data(Self.secret))
    }
}
