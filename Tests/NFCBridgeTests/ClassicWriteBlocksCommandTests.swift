import Foundation
import NFCCore
import PN532Sim
import Testing

@testable import NFCBridge

/// The `write_blocks` request: its one documented shape, validated strictly, and the executor on a
/// virtual Classic.
@Suite struct ClassicWriteBlocksCommandTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let data = "00112233445566778899AABBCCDDEEFF"

    func parse(_ json: String) -> Result<CommandRequest, CommandRejection> {
        CommandParser.parse(command: "write_blocks", payload: Array(json.utf8), policy: CommandPolicy(), now: now, monotonic: 0)
    }

    func message(_ json: String) -> String? {
        if case let .failure(rejection) = parse(json) {
            #expect(rejection.error.code == .invalidRequest)
            return rejection.error.message
        }
        return nil
    }

    @Test func theDocumentedShapeParses() throws {
        let request = try parse(#"{"id":"b","blocks":[{"block":4,"data_hex":"\#(Self.data)"},{"block":6,"data_hex":"\#(Self.data)"}],"key":"A0A1A2A3A4A5","key_type":"B"}"#).get()
        let bytes = try #require([UInt8](hex: Self.data))
        #expect(request.command == .writeBlocks)
        #expect(request.action == .writeBlocks(
            blocks: [ClassicBlockData(block: 4, data: bytes), ClassicBlockData(block: 6, data: bytes)],
            key: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5], keyType: .b, allowTrailer: false))
        // key_type defaults to A; a trailer with allow_trailer and uid.
        let trailer = try parse(#"{"id":"t","uid":"DEADBEEF","allow_trailer":true,"blocks":[{"block":7,"data_hex":"FFFFFFFFFFFFFF078069FFFFFFFFFFFF"}],"key":"FFFFFFFFFFFF"}"#).get()
        guard case let .writeBlocks(_, _, keyType, allowTrailer) = trailer.action else {
            Issue.record("not write_blocks: \(trailer.action)")
            return
        }
        #expect(keyType == .a && allowTrailer)
        #expect(trailer.uid == [0xDE, 0xAD, 0xBE, 0xEF])
    }

    @Test func everyProblemNamesItsField() {
        let key = #""key":"FFFFFFFFFFFF""#
        let block = #"{"block":4,"data_hex":"\#(Self.data)"}"#
        #expect(message(#"{"id":"a",\#(key)}"#)?.hasPrefix("blocks: required") == true)
        #expect(message(#"{"id":"a","blocks":{},\#(key)}"#)?.hasPrefix("blocks: must be an array") == true)
        #expect(message(#"{"id":"a","blocks":[],\#(key)}"#) == "blocks: must hold at least one block")
        #expect(message(#"{"id":"a","blocks":[4],\#(key)}"#)?.hasPrefix("blocks[0]: must be an object") == true)
        #expect(message(#"{"id":"a","blocks":[{"block":4}],\#(key)}"#)?.hasPrefix("blocks[0].data_hex: required") == true)
        #expect(message(#"{"id":"a","blocks":[{"block":4,"data_hex":"0011"}],\#(key)}"#) == "blocks[0].data_hex: must be 16 bytes, got 2")
        #expect(message(#"{"id":"a","blocks":[{"block":256,"data_hex":"\#(Self.data)"}],\#(key)}"#)?.hasPrefix("blocks[0].block: required") == true)
        #expect(message(#"{"id":"a","blocks":[\#(block),{"block":"5","data_hex":"\#(Self.data)"}],\#(key)}"#)?.hasPrefix("blocks[1].block") == true)
        #expect(message(#"{"id":"a","blocks":[{"block":4,"data_hex":"\#(Self.data)","key":"x"}],\#(key)}"#)?.hasPrefix("blocks[0].key: unknown field") == true)
        #expect(message(#"{"id":"a","blocks":[\#(block)]}"#)?.hasPrefix("key: required") == true)
        #expect(message(#"{"id":"a","blocks":[\#(block)],"key":"FFFF"}"#)?.hasPrefix("key: must be 6 bytes") == true)
        #expect(message(#"{"id":"a","blocks":[\#(block)],\#(key),"key_type":"C"}"#) == #"key_type: must be "A" or "B""#)
        #expect(message(#"{"id":"a","blocks":[\#(block)],\#(key),"allow_trailer":"yes"}"#) == "allow_trailer: must be true or false")
        #expect(message(#"{"id":"a","blocks":[\#(block)],\#(key),"password":"00000000"}"#)?.hasPrefix("password: unknown field") == true)
        #expect(message(#"{"id":"a","blocks":[\#(block)],\#(key),"allow_trailer":true}"#)?.hasPrefix("uid: required with allow_trailer") == true)
        #expect(message(#"{"id":"a","blocks":[{"block":0,"data_hex":"\#(Self.data)"}],\#(key)}"#)?.hasPrefix("blocks: Block 0 is the manufacturer block") == true)
        #expect(message(#"{"id":"a","blocks":[\#(block),\#(block)],\#(key)}"#) == "blocks: Block 4 is given twice")
        #expect(message(#"{"id":"a","blocks":[{"block":7,"data_hex":"FFFFFFFFFFFFFF078069FFFFFFFFFFFF"}],\#(key)}"#)?
            .contains("needs allow_trailer") == true)
        #expect(message(#"{"id":"a","uid":"DEADBEEF","allow_trailer":true,"blocks":[{"block":7,"data_hex":"FFFFFFFFFFFFFF078169FFFFFFFFFFFF"}],\#(key)}"#)?
            .contains("inconsistent") == true)
    }

    @Test func theExecutorWritesAVirtualClassic() async throws {
        let tag = try VirtualClassicTag(model: .classic1K, uid: [0xDE, 0xAD, 0xBE, 0xEF])
        let transport = VirtualTagTransport(tag: tag)
        let bytes = try #require([UInt8](hex: Self.data))
        let outcome = try await TagCommandExecutor().execute(
            .writeBlocks(blocks: [ClassicBlockData(block: 4, data: bytes)], key: [UInt8](repeating: 0xFF, count: 6),
                         keyType: .a, allowTrailer: false), on: transport)
        let data = JSONValueEncoder.members(of: outcome)
        #expect(data["pages_written"] == [4])
        #expect(data["bytes_written"] == 16)
        #expect(data["uid"] == "DEADBEEF")
        #expect(tag.block(4) == bytes)
        // A key the access bits refuse: access_denied, with the (empty) blocks written.
        tag.setKeys(sector: 2, a: [1, 2, 3, 4, 5, 6], b: [6, 5, 4, 3, 2, 1], accessBits: [0x78, 0x77, 0x88, 0xC1])
        do {
            _ = try await TagCommandExecutor().execute(
                .writeBlocks(blocks: [ClassicBlockData(block: 8, data: bytes)], key: [1, 2, 3, 4, 5, 6], keyType: .a,
                             allowTrailer: false), on: transport)
            Issue.record("the write went through")
        } catch {
            #expect(error.code == .accessDenied)
            #expect(error.details.pagesWritten == [])
        }
        #expect(tag.block(8) == [UInt8](repeating: 0, count: 16))
    }
}
