import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// Wraps the real executor and pulls the tag out of the field after `commands` more frames.
struct RemovingExecutor: CommandExecuting {
    var commands: Int
    let inner = TagCommandExecutor()

    func execute(_ action: CommandAction, on transport: any TagTransport, identified: CardInfo?)
        async throws(CommandError) -> any CommandOutcome
    {
        (transport as? VirtualTagTransport)?.remove(afterCommands: commands)
        return try await inner.execute(action, on: transport, identified: identified)
    }
}

/// The router with the real executor (NFCCore identification, TagOperations, TagDumper, exports) on
/// virtual NTAG215s: what the MQTT commands do to a tag's memory.
@Suite(.timeLimit(.minutes(1))) struct CommandExecutorTests {
    /// The NDEF TLV area of an NTAG215 (from page 4) holding `message`, as a tag holds it.
    func userArea(of tag: VirtualType2Tag, bytes: Int) -> [UInt8] {
        Array(tag.memory[16..<(16 + bytes)])
    }

    func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: NDEFJSON.decodeRecords(Data(#"[{"uri":"\#(uri)"}]"#.utf8))).bytes
    }

    @Test func writeRecordsOnThePresentTag() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        await h.send("write", #"{"id":"w","records":[{"uri":"https://example.com/a"}]}"#)
        let response = await h.response("write")
        #expect(response["status"] == "ok", "\(response)")
        let data = try #require(response["data"])
        #expect(data["uid"] == "04A1B2C3D4E5F6")
        #expect(data["cardType"] == .string(CardType.ntag215.description))
        let message = try uriMessage("https://example.com/a")
        #expect(data["message_length"] == .int(Int64(message.count)))
        let pages = try #require(data["pages_written"]?.arrayValue)
        #expect(!pages.isEmpty)
        #expect(data["bytes_written"] == .int(Int64(pages.count * 4)))
        #expect(userArea(of: tag, bytes: 2 + message.count + 1) == [0x03, UInt8(message.count)] + message + [0xFE])
        await h.stop()
    }

    @Test func writeOnTheNextTagThatArrives() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        await h.send("write", #"{"id":"w","ndef_hex":"D1010355016578"}"#)
        #expect(await h.response("write")["status"] == "waiting")
        let tag = h.placeTag()
        #expect(await h.response("write", count: 2)["status"] == "ok")
        #expect(userArea(of: tag, bytes: 10) == [0x03, 0x07, 0xD1, 0x01, 0x03, 0x55, 0x01, 0x65, 0x78, 0xFE])
        await h.stop()
    }

    @Test func capacityExceededWritesNothing() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        let before = tag.memory
        let long = String(repeating: "x", count: 600)
        await h.send("write", #"{"id":"big","records":[{"text":"\#(long)"}]}"#)
        let response = await h.response("write")
        #expect(response.errorCode == "capacity_exceeded")
        #expect(response["data"]?["pages_written"] == [])
        #expect(tag.memory == before)
        await h.stop()
    }

    @Test func verifyFailureReportsThePagesWritten() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        tag.corruptNextWrite()
        await h.send("write", #"{"id":"v","records":[{"uri":"https://example.com/verify"}]}"#)
        let response = await h.response("write")
        #expect(response.errorCode == "verify_failed")
        #expect(response["data"]?["pages_written"]?.arrayValue?.isEmpty == false)
        await h.stop()
    }

    @Test func tagRemovedMidWriteReportsThePagesKnownWritten() async throws {
        // Identification and the checks take a handful of frames; the writes come after them.
        let h = try await CommandHarness(executor: RemovingExecutor(commands: 12))
        h.placeTag()
        let long = String(repeating: "y", count: 200)
        await h.send("write", #"{"id":"r","records":[{"text":"\#(long)"}]}"#)
        let response = await h.response("write")
        #expect(response.errorCode == "tag_removed")
        let pages = try #require(response["data"]?["pages_written"]?.arrayValue)
        #expect(!pages.isEmpty, "\(response)")
        await h.stop()
    }

    @Test func wrongPasswordIsAuthFailed() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        tag.setPassword([0x11, 0x22, 0x33, 0x44], pack: [0xAA, 0xBB])
        tag.setAuth0(4)
        await h.send("write", #"{"id":"p1","ndef_hex":"D00000","password":"DEADBEEF"}"#)
        #expect(await h.response("write").errorCode == "auth_failed")
        // No password for protected pages is `auth_required` (as scan says), not a wrong password.
        await h.send("write", #"{"id":"p2","ndef_hex":"D00000"}"#)
        #expect(await h.response("write", count: 2).errorCode == "auth_required")
        await h.send("write", #"{"id":"p3","ndef_hex":"D00000","password":"11223344"}"#)
        #expect(await h.response("write", count: 3)["status"] == "ok")
        await h.stop()
    }

    @Test func formatEmptiesTheMessage() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        try tag.writeNDEF(try uriMessage("https://example.com/old"))
        await h.send("format", #"{"id":"f"}"#)
        let response = await h.response("format")
        #expect(response["status"] == "ok")
        #expect(response["data"]?["capability_container"] == "E1103E00")
        #expect(userArea(of: tag, bytes: 3) == [0x03, 0x00, 0xFE])
        await h.stop()
    }

    @Test func lockThenWriteIsTagLocked() async throws {
        let h = try await CommandHarness(policy: CommandPolicy(lockEnabled: true), executor: TagCommandExecutor())
        h.placeTag()
        await h.send("lock", #"{"id":"L","uid":"04A1B2C3D4E5F6","confirm":"04A1B2C3D4E5F6"}"#)
        let locked = await h.response("lock")
        #expect(locked["status"] == "ok", "\(locked)")
        #expect(locked["data"]?["capability_container"]?.stringValue?.hasSuffix("0F") == true)
        #expect(await h.audits(atLeast: 1).count == 1)
        await h.send("write", #"{"id":"after","ndef_hex":"D00000"}"#)
        #expect(await h.response("write").errorCode == "tag_locked")
        await h.stop()
    }

    /// A Classic 1K whose sector 3 only opens with a user key: the MQTT dump reads it with the
    /// executor's keys (the agent passes `dump.keys_file`'s), and not with the default dictionary alone.
    @Test func classicDumpUsesTheExecutorsKeys() async throws {
        let userKey: [UInt8] = [1, 2, 3, 4, 5, 6]
        func sectorsRead(_ executor: TagCommandExecutor) async throws -> JSONValue? {
            let h = try await CommandHarness(executor: executor)
            let tag = try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
            tag.setKeys(sector: 3, a: userKey, b: userKey, accessBits: [0x7F, 0x07, 0x88, 0x40])
            h.device.place(tag)
            await h.send("dump", #"{"id":"c"}"#)
            let response = await h.response("dump")
            await h.stop()
            #expect(response["status"] == "ok", "\(response)")
            let facts = response["data"]?["dump"]?["facts"]?.arrayValue ?? []
            return facts.first { $0["key"] == "Sectors Read" }?["value"]
        }
        #expect(try await sectorsRead(TagCommandExecutor(familyOptions: FamilyDumpOptions(ClassicKeyDictionary(userKeys: [userKey])))) == "16 of 16")
        #expect(try await sectorsRead(TagCommandExecutor()) == "15 of 16")
    }

    @Test func dumpAsJSONAndAsFiles() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        try tag.writeNDEF(try uriMessage("https://example.com/dump"))
        await h.send("dump", #"{"id":"j"}"#)
        let json = await h.response("dump")
        #expect(json["status"] == "ok")
        #expect(json["data"]?["format"] == "json")
        #expect(json["data"]?["dump"]?["uid"] == "04A1B2C3D4E5F6")
        #expect(json["data"]?["dump"]?["pages"]?.arrayValue?.count == 135)

        for (n, format) in ["hex", "flipper", "pm3", "mfd"].enumerated() {
            await h.send("dump", #"{"id":"f\#(n)","format":"\#(format)"}"#)
            let response = await h.response("dump", count: n + 2)
            #expect(response["status"] == "ok", "\(format): \(response)")
            let file = try #require(response["data"]?["file"]?.stringValue.flatMap { Data(base64Encoded: $0) })
            #expect(!file.isEmpty)
            #expect(response["data"]?["file_name"]?.stringValue?.hasPrefix("ntag-04a1b2c3d4e5f6") == true)
            if format == "flipper" {
                #expect(String(decoding: file, as: UTF8.self).hasPrefix("Filetype: Flipper NFC device"))
            }
        }
        await h.stop()
    }

    /// A read-protected tag (AUTH0 = 10h, PROT on) dumps as `json` and `flipper`, which mark the pages
    /// not read, but `mfd` and `pm3` answer `partial_dump` naming page 16: those files would hold zeros
    /// there, which written back set AUTH0 = 00h (issue 10).
    @Test func partialDumpIsRefusedInFixedOffsetFormats() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        let tag = h.placeTag()
        tag.setPassword([1, 2, 3, 4], pack: [0xAA, 0xBB])
        tag.setAuth0(0x10)
        tag.setReadProtection(true)
        for (n, format) in ["json", "flipper", "mfd", "pm3"].enumerated() {
            await h.send("dump", #"{"id":"p\#(n)","format":"\#(format)"}"#)
            let response = await h.response("dump", count: n + 1)
            if format == "json" || format == "flipper" {
                #expect(response["status"] == "ok", "\(format): \(response)")
            } else {
                #expect(response["status"] == "error", "\(format): \(response)")
                #expect(response["error"]?["code"] == "partial_dump", "\(format): \(response)")
                #expect(response["error"]?["message"]?.stringValue?.contains("page 16 of 135 was not read") == true, "\(response)")
            }
        }
        await h.stop()
    }
    /// The file of an MQTT `dump` in `format`, decoded, with its name and content type.
    func dumpFile(_ h: CommandHarness, id: String, _ request: String, count: Int) async throws
        -> (bytes: [UInt8], fileName: String?, contentType: String?)
    {
        await h.send("dump", request)
        let response = await h.response("dump", count: count)
        #expect(response["status"] == "ok", "\(request): \(response)")
        #expect(response["id"] == .string(id))
        let file = try #require(response["data"]?["file"]?.stringValue.flatMap { Data(base64Encoded: $0) }, "\(response)")
        return ([UInt8](file), response["data"]?["file_name"]?.stringValue, response["data"]?["content_type"]?.stringValue)
    }

    /// What the CLI writes for `format`: `nfcbridge dump --format` dumps for the format's target and
    /// renders through the same table; `nfcbridge export` of that dump renders it the same way.
    func cliExport(of tag: any VirtualTag, _ format: ExportFormat, partial: Bool = false) async throws -> [UInt8] {
        let transport = VirtualTagTransport(tag: tag)
        let info = try await TagIdentifier.identify(transport)
        var options = DumpOptions()
        options.target = format.dumpTarget
        let dump = try await TagDumper.dump(info: info, transport: transport, options: options)
        return try format.render(dump, compact: false, partial: partial)
    }

    /// The formats MQTT could not give before one table served both (pm3json, pm3key, eml, mfd64, bin):
    /// the same bytes as the CLI's export of the same tag, under the table's file name and content type.
    @Test func newFormatsAreTheCLIsBytes() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        var count = 0
        func check(_ tag: () throws -> any VirtualTag, _ formats: [ExportFormat], base: String) async throws {
            let placed = try tag()
            h.device.place(placed)
            for format in formats {
                count += 1
                let file = try await dumpFile(h, id: "n\(count)", #"{"id":"n\#(count)","format":"\#(format.rawValue)"}"#, count: count)
                let cli = try await cliExport(of: try tag(), format)
                #expect(!cli.isEmpty, "\(format.rawValue)")
                #expect(file.bytes == cli, "\(format.rawValue) of \(base)")
                #expect(file.fileName == base + format.fileSuffix)
                #expect(file.contentType == format.contentType)
            }
            h.device.remove(placed)
        }
        try await check({ VirtualType2Tag(model: .ntag203, uid: CommandHarness.tagUID) }, [.mfd64, .pm3json, .bin],
                        base: "ntag-04a1b2c3d4e5f6")
        try await check({ try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF]) },
                        [.eml, .pm3key, .pm3json, .bin], base: "mifare-classic-deadbeef")
        await h.stop()
    }

    /// `partial: true` over MQTT writes what the CLI's `--partial` writes; without it the same dump is
    /// `partial_dump`; a format that cannot hold the family is `unsupported` with a hint naming only
    /// formats that hold it; and the router goes on serving requests after each refusal.
    @Test func partialAndRefusalsOverMQTT() async throws {
        let h = try await CommandHarness(executor: TagCommandExecutor())
        func protected() -> VirtualType2Tag {
            let tag = VirtualType2Tag(model: .ntag215, uid: CommandHarness.tagUID)
            tag.setPassword([1, 2, 3, 4], pack: [0xAA, 0xBB])
            tag.setAuth0(0x10)
            tag.setReadProtection(true)
            return tag
        }
        let tag = protected()
        h.device.place(tag)
        await h.send("dump", #"{"id":"p1","format":"pm3json"}"#)
        let refused = await h.response("dump")
        #expect(refused["status"] == "error", "\(refused)")
        #expect(refused["error"]?["code"] == "partial_dump", "\(refused)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("page 16 of 135 was not read") == true, "\(refused)")
        for (n, format) in [ExportFormat.pm3json, .mfd, .pm3].enumerated() {
            let file = try await dumpFile(
                h, id: "q\(n)", #"{"id":"q\#(n)","format":"\#(format.rawValue)","partial":true}"#, count: n + 2)
            #expect(file.bytes == (try await cliExport(of: protected(), format, partial: true)), "\(format.rawValue)")
        }
        h.device.remove(tag)

        let desfire = try VirtualDESFireTag(uid: [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60], model: .ev1, applications: [])
        h.device.place(desfire)
        await h.send("dump", #"{"id":"d64","format":"mfd64"}"#)
        let unsupported = await h.response("dump", count: 5)
        #expect(unsupported["status"] == "error", "\(unsupported)")
        #expect(unsupported["error"]?["code"] == "unsupported", "\(unsupported)")
        let message = try #require(unsupported["error"]?["message"]?.stringValue)
        #expect(message.contains("cannot be exported as mfd64"), "\(message)")
        #expect(!message.hasSuffix("use mfd") && message.contains("use flipper"), "\(message)")
        // Still serving: the same card in a format the hint named.
        let flipper = try await dumpFile(h, id: "df", #"{"id":"df","format":"flipper"}"#, count: 6)
        #expect(String(decoding: flipper.bytes, as: UTF8.self).hasPrefix("Filetype: Flipper NFC device"))
        await h.stop()
    }
}
