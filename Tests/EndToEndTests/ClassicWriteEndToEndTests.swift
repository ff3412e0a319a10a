import Foundation
import NFCCore
import Testing
import TestSupport

/// MIFARE Classic writes through the real libnfc (`pn532_uart`) against `nfcbridge-sim`: the CLI
/// `write-block`, `format` and `write`, and the MQTT `write_blocks`, `format` and `write` — the
/// virtual card's memory checked over the simulator's control socket.
@Suite(.serialized) struct ClassicWriteEndToEndTests {
    static let factoryKey = "FFFFFFFFFFFF"
    /// Sector 2 as a MAD-style sector: data 100 (write with key B only), trailer 011.
    static let scenario = """
        tags:
          - id: badge
            type: classic_1k
            uid: DEADBEEF
            blocks: {9: CAFEBABECAFEBABECAFEBABECAFEBABE}
            keys: [{sector: 2, a: A0A1A2A3A4A5, b: B0B1B2B3B4B5, access: 787788C1}]
        timeline: [{at: 0, place: badge}]
        """

    /// The CLI helpers of the other command tests (run against the simulator, the JSON on stdout, the
    /// error code on stderr).
    let cli = CommandsCLITests()

    func nfcbridge(_ arguments: [String], on simulator: SimulatorProcess) throws -> ProcessResult {
        try cli.nfcbridge(arguments + ["--timeout", "20"], on: simulator)
    }

    func json(_ result: ProcessResult) -> [String: Any]? { cli.json(result) }

    func errorCode(_ result: ProcessResult) -> String? { cli.errorCode(result) }

    static func block(_ number: Int, of memory: [UInt8]) -> [UInt8] { Array(memory[(number * 16)..<(number * 16 + 16)]) }

    /// The NDEF message of an AN1305 card's memory: the TLVs across the data blocks of the sectors the
    /// MAD1 lists with AID E103h.
    static func ndef(in memory: [UInt8]) throws -> [UInt8]? {
        let mad = try ClassicMAD(sector0: Array(memory[16..<48]))
        let area = mad.sectors(of: ClassicMAD.ndefAID).flatMap { sector in (0..<3).flatMap { block(sector * 4 + $0, of: memory) } }
        guard case let .message(message) = NFCForumTLV.walk(memory: area, start: 0, end: area.count, controlTLVs: false) else {
            return nil
        }
        return message
    }

    @Test func writeBlockWritesAndReadsBackAndRefusesWhatTheCardWouldRefuse() throws {
        let simulator = try SimulatorProcess(scenario: Self.scenario)
        defer { simulator.stop() }
        let data = "00112233445566778899AABBCCDDEEFF"
        let ok = try nfcbridge(["write-block", "--block", "5", "--data", data, "--key", Self.factoryKey], on: simulator)
        #expect(ok.status == 0, "\(ok.err)")
        #expect(json(ok)?["pages_written"] as? [Int] == [5])
        #expect(json(ok)?["uid"] as? String == "DEADBEEF")
        var memory = try LibNFCTools.memory(of: "badge", on: simulator)
        #expect(Self.block(5, of: memory).hexString == data)

        // A trailer without --allow-trailer: refused before the card is touched.
        let trailer = Self.factoryKey + "FF078069" + Self.factoryKey
        let refused = try nfcbridge(["write-block", "--block", "7", "--data", trailer, "--key", Self.factoryKey], on: simulator)
        #expect(refused.status == 1)
        #expect(errorCode(refused) == "invalid_request", "\(refused.err)")
        #expect(refused.err.contains("allow_trailer"), "\(refused.err)")
        // With it, the UID is required; inconsistent access bits are refused.
        let noUID = try nfcbridge(["write-block", "--block", "7", "--data", trailer, "--key", Self.factoryKey, "--allow-trailer"], on: simulator)
        #expect(errorCode(noUID) == "invalid_request", "\(noUID.err)")
        let broken = try nfcbridge(["write-block", "--block", "7", "--data", Self.factoryKey + "FF078169" + Self.factoryKey,
                                    "--key", Self.factoryKey, "--allow-trailer", "--uid", "DEADBEEF"], on: simulator)
        #expect(errorCode(broken) == "invalid_request", "\(broken.err)")
        #expect(try LibNFCTools.memory(of: "badge", on: simulator) == memory)

        // Sector 2's data blocks are written with key B only: key A is refused, key B writes.
        let denied = try nfcbridge(["write-block", "--block", "9", "--data", data, "--key", "A0A1A2A3A4A5"], on: simulator)
        #expect(denied.status == 1)
        #expect(errorCode(denied) == "access_denied", "\(denied.err)")
        #expect(try LibNFCTools.memory(of: "badge", on: simulator) == memory)
        let keyB = try nfcbridge(["write-block", "--block", "9", "--data", data, "--key", "B0B1B2B3B4B5", "--key-type", "B"], on: simulator)
        #expect(keyB.status == 0, "\(keyB.err)")
        memory = try LibNFCTools.memory(of: "badge", on: simulator)
        #expect(Self.block(9, of: memory).hexString == data)

        // A trailer with --allow-trailer and the card's UID: new key A, read back with it.
        let newTrailer = "112233445566" + "FF078069" + Self.factoryKey
        let written = try nfcbridge(["write-block", "--block", "7", "--data", newTrailer, "--key", Self.factoryKey,
                                     "--allow-trailer", "--uid", "DEADBEEF"], on: simulator)
        #expect(written.status == 0, "\(written.err)")
        #expect(Self.block(7, of: try LibNFCTools.memory(of: "badge", on: simulator)).hexString == newTrailer)
        // The right UID is required.
        let other = try nfcbridge(["write-block", "--block", "4", "--data", data, "--key", Self.factoryKey, "--uid", "01020304"], on: simulator)
        #expect(errorCode(other) == "tag_mismatch", "\(other.err)")
    }

    @Test func formatThenWriteGivesAnAN1305Card() throws {
        let simulator = try SimulatorProcess(scenario: """
            tags:
              - {id: badge, type: classic_1k, uid: DEADBEEF}
            timeline: [{at: 0, place: badge}]
            """)
        defer { simulator.stop() }
        let write = try nfcbridge(["write", "--uri", "https://example.com/early"], on: simulator)
        #expect(errorCode(write) == "unsupported", "\(write.err)")

        let format = try nfcbridge(["format"], on: simulator)
        #expect(format.status == 0, "\(format.err)")
        var memory = try LibNFCTools.memory(of: "badge", on: simulator)
        #expect(Self.block(3, of: memory).hexString == "A0A1A2A3A4A5787788C1" + Self.factoryKey)
        #expect(Self.block(7, of: memory).hexString == "D3F7D3F7D3F77F078840" + Self.factoryKey)
        #expect(try Self.ndef(in: memory) == [])

        let uri = try nfcbridge(["write", "--uri", "https://example.com/classic"], on: simulator)
        #expect(uri.status == 0, "\(uri.err)")
        memory = try LibNFCTools.memory(of: "badge", on: simulator)
        let expected = try NDEFMessage(records: [NDEFRecord.uri("https://example.com/classic")]).bytes
        #expect(try Self.ndef(in: memory) == expected)
        // And the agent's own reader finds it.
        let scan = try runProcess(
            Binaries.path("nfcbridge"), ["dump", "--device", "pn532_uart:\(simulator.linkPath)", "--timeout", "20"],
            environment: simulator.libnfcEnvironment)
        #expect(scan.status == 0, "\(scan.err)")
    }

    @Test func mqttWriteBlocksFormatAndWrite() async throws {
        try await withCommandAgent(scenario: Self.scenario) { h in
            let data = "0102030405060708090A0B0C0D0E0F10"
            try await h.request("write_blocks", #"{"id":"b1","blocks":[{"block":4,"data_hex":"\#(data)"},{"block":13,"data_hex":"\#(data)"}],"key":"FFFFFFFFFFFF","key_type":"A"}"#)
            let b1 = await h.final("write_blocks", id: "b1")
            #expect(b1.status == "ok", "\(b1.payloadString ?? "")")
            #expect(b1.data?["pages_written"] as? [Int] == [4, 13])
            #expect(b1.data?["bytes_written"] as? Int == 32)
            var memory = try h.memory("badge")
            #expect(Self.block(4, of: memory).hexString == data && Self.block(13, of: memory).hexString == data)

            // Strict shape: the trailer, a short block, an unknown field.
            for (id, payload) in [
                ("t", #"{"id":"t","blocks":[{"block":7,"data_hex":"FFFFFFFFFFFFFF078069FFFFFFFFFFFF"}],"key":"FFFFFFFFFFFF"}"#),
                ("s", #"{"id":"s","blocks":[{"block":4,"data_hex":"00"}],"key":"FFFFFFFFFFFF"}"#),
                ("u", #"{"id":"u","blocks":[{"block":4,"data_hex":"\#(data)","key":"FF"}],"key":"FFFFFFFFFFFF"}"#),
            ] {
                try await h.request("write_blocks", payload)
                let response = await h.final("write_blocks", id: id)
                #expect(response.errorCode == "invalid_request", "\(response.payloadString ?? "")")
            }
            try await h.request("write_blocks", #"{"id":"d","blocks":[{"block":8,"data_hex":"\#(data)"}],"key":"A0A1A2A3A4A5","key_type":"A"}"#)
            let denied = await h.final("write_blocks", id: "d")
            #expect(denied.errorCode == "access_denied", "\(denied.payloadString ?? "")")
            #expect(denied.data?["pages_written"] as? [Int] == [])
            #expect(try h.memory("badge") == memory)

            // Sector 2 does not open with the factory key: format refuses, nothing written.
            try await h.request("format", #"{"id":"f0"}"#)
            let f0 = await h.final("format", id: "f0")
            #expect(f0.errorCode == "unsupported", "\(f0.payloadString ?? "")")
            #expect(try h.memory("badge") == memory)
            // Key B puts sector 2 back in the transport configuration; then format and write.
            try await h.request("write_blocks", #"{"id":"r","uid":"DEADBEEF","allow_trailer":true,"key":"B0B1B2B3B4B5","key_type":"B","blocks":[{"block":11,"data_hex":"FFFFFFFFFFFFFF078069FFFFFFFFFFFF"}]}"#)
            let reset = await h.final("write_blocks", id: "r")
            #expect(reset.status == "ok", "\(reset.payloadString ?? "")")
            try await h.request("format", #"{"id":"f1"}"#)
            let f1 = await h.final("format", id: "f1")
            #expect(f1.status == "ok", "\(f1.payloadString ?? "")")
            try await h.request("write", #"{"id":"w","records":[{"text":"Classic over MQTT"}]}"#)
            let w = await h.final("write", id: "w")
            #expect(w.status == "ok", "\(w.payloadString ?? "")")
            memory = try h.memory("badge")
            let expected = try NDEFMessage(records: [NDEFRecord.text("Classic over MQTT", language: "en")]).bytes
            #expect(try Self.ndef(in: memory) == expected)
            #expect(w.data?["capability_container"] as? String == Array(memory[16..<48]).hexString)
        }
    }
}
