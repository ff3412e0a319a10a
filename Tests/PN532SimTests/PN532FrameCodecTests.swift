import NFCCore
import Testing
@testable import PN532Sim

/// Feeds `input` to fresh decoders split every way swift-nio's ByteToMessageDecoderVerifier tries —
/// all at once, byte by byte, frame by frame, and in uneven chunks — and returns each result.
func decodeInEverySplit(_ input: [UInt8], frameEnds: [Int]) -> [[PN532DecodedItem]] {
    func run(_ chunks: [[UInt8]]) -> [PN532DecodedItem] {
        var decoder = PN532FrameDecoder()
        return chunks.flatMap { decoder.decode($0) }
    }
    var results = [run([input]), run(input.map { [$0] })]
    var start = 0
    var frames: [[UInt8]] = []
    for end in frameEnds + [input.count] where end > start {
        frames.append(Array(input[start..<end]))
        start = end
    }
    results.append(run(frames))
    for size in [2, 3, 5, 7, 11] {
        results.append(run(stride(from: 0, to: input.count, by: size).map { Array(input[$0..<min($0 + size, input.count)]) }))
    }
    return results
}

@Suite struct PN532FrameCodecTests {
    /// Frames computed by hand and checked against nfcpy's and libnfc's traces (peers-nfc.md §1.2).
    static let knownFrames: [(PN532Frame, String)] = [
        (.command(0x02), "00 00 FF 02 FE D4 02 2A 00"),
        (.response(to: 0x02, [0x32, 0x01, 0x06, 0x07]), "00 00 FF 06 FA D5 03 32 01 06 07 E8 00"),
        (.command(0x14, [0x01]), "00 00 FF 03 FD D4 14 01 17 00"),
        (.response(to: 0x14), "00 00 FF 02 FE D5 15 16 00"),
        (.command(0x4A, [0x01, 0x00]), "00 00 FF 04 FC D4 4A 01 00 E1 00"),
        (.response(to: 0x4A, [0x00]), "00 00 FF 03 FD D5 4B 00 E0 00"),
        (.response(to: 0x4A, [0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0x16, 0xC6, 0xC2, 0xD7, 0x38, 0x81]),
         "00 00 FF 0F F1 D5 4B 01 01 00 44 00 07 04 16 C6 C2 D7 38 81 61 00"),
        (.command(0x4A, [0x01, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x00]), "00 00 FF 09 F7 D4 4A 01 01 00 FF FF 01 00 E1 00"),
        (.command(0x42, [0x60]), "00 00 FF 03 FD D4 42 60 8A 00"),
        (.command(0x40, [0x01, 0x30, 0x04]), "00 00 FF 05 FB D4 40 01 30 04 B7 00"),
        (.command(0x32, [0x01, 0x00]), "00 00 FF 04 FC D4 32 01 00 F9 00"),
        (.command(0x00, [0x00] + Array("libnfc".utf8)), "00 00 FF 09 F7 D4 00 00 6C 69 62 6E 66 63 BE 00"),
        (.command(0x52, [0x00]), "00 00 FF 03 FD D4 52 00 DA 00"),
        (.syntaxError, "00 00 FF 01 FF 7F 81 00"),
        (.ack, "00 00 FF 00 FF 00"),
        (.nack, "00 00 FF FF 00 00"),
    ]

    @Test func buildersGiveTheDocumentedBytes() {
        for (frame, hex) in Self.knownFrames {
            #expect(frame.bytes.spacedHexString == hex, "\(frame)")
        }
    }

    @Test func decoderReadsEveryKnownFrameBack() {
        for (frame, hex) in Self.knownFrames {
            var decoder = PN532FrameDecoder()
            #expect(decoder.decode([UInt8](hex: hex) ?? []) == [.frame(frame)])
            #expect(decoder.bufferedByteCount <= 1)  // at most the postamble 00, kept as a possible start
        }
    }

    @Test func longDataGoesOutAsAnExtendedFrame() throws {
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = PN532Frame.response(to: 0x40, data).bytes
        // 00 00 FF FF FF LENM LENL LCS: LEN = TFI + code + 300 = 302 = 0x012E.
        #expect(Array(bytes.prefix(8)) == [0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x01, 0x2E, 0xD1])
        #expect(bytes.count == 301 + 11)  // code + data, plus libnfc's extended-frame overhead
        // The host side accepts up to 265 bytes: a 255-byte command (LEN 257) as libnfc sends it.
        let command = PN532Frame.command(0x40, [0x01] + [UInt8](repeating: 0xAB, count: 254))
        var decoder = PN532FrameDecoder()
        #expect(command.bytes[3...4] == [0xFF, 0xFF])
        #expect(decoder.decode(command.bytes) == [.frame(command)])
    }

    @Test func dripFeedGivesTheSameFramesWhateverTheSplit() {
        let wakeUp: [UInt8] = [0x55, 0x55] + [UInt8](repeating: 0, count: 14)
        let frames: [PN532Frame] = [
            .command(0x14, [0x01]), .ack, .command(0x00, [0x00] + Array("libnfc".utf8)), .nack,
            .command(0x40, [0x01] + [UInt8](repeating: 0x5A, count: 260)), .syntaxError, .command(0x02),
        ]
        var input = wakeUp
        var ends: [Int] = []
        for frame in frames {
            input += frame.bytes
            ends.append(input.count)
        }
        let expected = frames.map { PN532DecodedItem.frame($0) }
        for result in decodeInEverySplit(input, frameEnds: ends) {
            #expect(result == expected)
        }
    }

    @Test func badChecksumsAreReportedAndTheNextFrameStillDecodes() {
        var badLength = PN532Frame.command(0x02).bytes
        badLength[4] ^= 0x01  // LCS
        var badData = PN532Frame.command(0x4A, [0x01, 0x00]).bytes
        badData[badData.count - 2] ^= 0x01  // DCS
        let good = PN532Frame.command(0x02)
        let input = badLength + badData + good.bytes
        for result in decodeInEverySplit(input, frameEnds: [badLength.count, badLength.count + badData.count]) {
            #expect(result == [.malformed(.lengthChecksum), .malformed(.dataChecksum), .frame(good)])
        }
    }

    @Test func oversizedExtendedFrameIsRefused() {
        // LEN 0x0200 = 512 > 265.
        var decoder = PN532FrameDecoder()
        let items = decoder.decode([0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x02, 0x00, 0xFE] + PN532Frame.command(0x02).bytes)
        #expect(items == [.malformed(.tooLong(512)), .frame(.command(0x02))])
    }

    @Test func incompleteFrameWaitsForTheRest() {
        let bytes = PN532Frame.command(0x4A, [0x01, 0x00]).bytes
        var decoder = PN532FrameDecoder()
        #expect(decoder.decode(Array(bytes.prefix(7))).isEmpty)
        #expect(decoder.decode(Array(bytes.dropFirst(7))) == [.frame(.command(0x4A, [0x01, 0x00]))])
    }
}
