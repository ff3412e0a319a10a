import Foundation
import Testing
import NFCCore

/// Decoding arbitrary bytes never traps: seeded random buffers (some plain noise, some mutated
/// valid messages so the decoder gets past the first header) through both leniencies, every typed
/// view, the display strings and the JSON form. Whatever decodes must re-encode and decode equal, and
/// go through the JSON form when it keeps its TNF's rules.
@Suite struct NDEFFuzzTests {
    /// SplitMix64: a tiny seeded generator, so a failure replays exactly.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [[UInt8]] = {
        let messages: [NDEFMessage] = [
            NDEFMessage(records: [.text("Hi"), .uri("https://www.example.com/path")]),
            NDEFMessage(records: [.smartPoster(uri: "https://openai.com", title: "OpenAI", action: .save)]),
            NDEFMessage(records: [.mime(type: "text/plain", payload: [1, 2, 3]), .external(type: "a.com:t", payload: [9]),
                                  .absoluteURI("http://a"), .text("Hello", encoding: .utf16)]),
        ]
        return messages.compactMap { try? $0.bytes } + [ndefHex("BA 0A 03 01 746578742f706c61696e 63 616263 36 00 03 646566 56 00 02 6768")]
    }()

    @Test func twentyThousandRandomBuffersNeverTrap() throws {
        var rng = SeededGenerator(state: 0x4E44_4546)
        var decodedCount = 0
        for round in 0..<20_000 {
            var buffer: [UInt8]
            if round % 2 == 0 {
                buffer = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                buffer = Self.seeds[round / 2 % Self.seeds.count]
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !buffer.isEmpty {
                    let index = Int.random(in: 0..<buffer.count, using: &rng)
                    switch UInt8.random(in: 0...2, using: &rng) {
                    case 0: buffer[index] = UInt8.random(in: 0...255, using: &rng)
                    case 1: buffer.remove(at: index)
                    default: buffer.insert(UInt8.random(in: 0...255, using: &rng), at: index)
                    }
                }
            }
            for leniency in [NDEFLeniency.strict, .relaxed] {
                let message: NDEFMessage
                do {
                    message = try NDEFMessage(bytes: buffer, leniency: leniency)
                } catch {
                    guard case let .invalidNDEF(detail) = error, detail.hasPrefix("offset ") else {
                        Issue.record("round \(round): unexpected error \(error) for \(buffer.hexString)")
                        return
                    }
                    continue
                }
                decodedCount += 1
                for record in message.records {
                    _ = (record.displayType, record.displayValue, record.uri, record.text, record.smartPoster)
                    _ = (record.mimeType, record.externalType)
                    _ = try? TextRecord(payload: record.payload, leniency: leniency)
                    _ = try? URIRecord(payload: record.payload, leniency: leniency)
                    _ = try? SmartPoster(payload: record.payload, leniency: leniency)
                }
                let again = try NDEFMessage(bytes: message.bytes, leniency: leniency)
                #expect(again == message, "round \(round): \(buffer.hexString)")
                // The JSON form encodes exactly what the strict decoder reads (one TNF rule table): a
                // record the relaxed decoder kept against its TNF's rules is refused, naming the field.
                let strictlyValid = (try? NDEFMessage(bytes: message.bytes, leniency: .strict)) != nil
                do {
                    let viaJSON = try NDEFJSON.decodeRecords(Data(NDEFJSON.encode(message).utf8))
                    #expect(strictlyValid, "round \(round): \(buffer.hexString)")
                    #expect(viaJSON == message.records, "round \(round): \(buffer.hexString)")
                } catch {
                    #expect(!strictlyValid && error.code == "invalid_argument", "round \(round): \(buffer.hexString): \(error)")
                }
            }
        }
        // The mutated seeds must reach the record views, or the loop proves little.
        #expect(decodedCount > 2_000)
    }
}
