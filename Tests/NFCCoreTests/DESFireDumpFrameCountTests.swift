import NFCCore
import PN532Sim
import Testing

/// The frames of a DESFire dump against the minimum (issue 25): GetVersion (identification's, not sent
/// again), one SelectApplication per application, GetFileIDs, and per file GetFileSettings and one
/// ReadData — a file of up to 59 bytes comes in one frame, the most a DESFire answer frame carries
/// (MF3ICD(Q)81 §9: longer answers are chained with AFh). Counted on the in-process virtual card.
@Suite struct DESFireDumpFrameCountTests {
    typealias V = VirtualDESFireTag

    /// 2 applications × 4 free standard files of 32 bytes, no NDEF application.
    static func card() throws -> V {
        let applications = (1...2).map { app in
            V.Application(aid: [UInt8(app), 0x00, 0x00], files: (1...4).map { file in
                V.File(id: UInt8(file), read: V.free, contents: .standard([UInt8](repeating: UInt8(app * 16 + file), count: 32)))
            })
        }
        return try V(uid: [0x04, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6], model: .ev1, applications: applications)
    }

    /// Identification, then the dump for `target`; the commands the dump sent (identification's not counted).
    static func dumpCommands(target: DumpTarget) async throws -> (TagDump, [[UInt8]]) {
        let transport = VirtualTagTransport(tag: try card())
        let info = try await TagIdentifier.identify(transport)
        let identification = transport.sentCommands.count
        let dump = try await TagDumper.dump(info: info, transport: transport, options: DumpOptions(target: target))
        return (dump, Array(transport.sentCommands.dropFirst(identification)))
    }

    /// The raw binary and the hex listing hold the files only: the data-only walk. PICC SelectApplication
    /// (the scan's NDEF read may have left another application selected), GetApplicationIDs, 2 × (Select,
    /// GetFileIDs, 4 × (GetFileSettings, ReadData)), and the NDEF application's SELECT (refused): 23.
    @Test func aBinaryDumpSendsTheDataOnlyWalk() async throws {
        let (dump, sent) = try await Self.dumpCommands(target: .memory)
        #expect(dump.files.count == 8)
        #expect(sent.count == 23, "\(sent.map(\.hexString))")
        #expect(!sent.contains { $0.first == 0x45 || $0.first == 0x64 }, "GetKeySettings / GetKeyVersion sent")
        #expect(sent.count { $0.first == 0xBD } == 8, "one ReadData per file")
        #expect(sent.count { $0.first == 0x60 } == 0, "GetVersion again")
    }

    /// JSON and Flipper hold the key settings (and Flipper the key versions): those are read too, once
    /// per level and key — and still no second GetVersion.
    @Test func aJSONDumpAddsOnlyTheKeyData() async throws {
        let (dump, sent) = try await Self.dumpCommands(target: .everything)
        #expect(dump.files.count == 8)
        let keyData = sent.count { $0.first == 0x45 || $0.first == 0x64 }
        #expect(sent.count { $0.first == 0x45 } == 3, "GetKeySettings: PICC and each application")
        #expect(sent.count == 23 + keyData, "\(sent.map(\.hexString))")
        // PICC: 1 key version; each application: 2 (keys 0 and 1): 3 GetKeySettings + 5 GetKeyVersion.
        #expect(keyData == 8, "\(sent.map(\.hexString))")
        #expect(sent.count { $0.first == 0x60 } == 0)
    }
}
