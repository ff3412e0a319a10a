import Synchronization

/// A transport wrapper that notes which FeliCa blocks the card acknowledged writing, so a Type 3
/// operation can report ``TagOperationError/pagesWritten`` without the Type 3 mapping tracking it.
///
/// It decodes WRITE WITHOUT ENCRYPTION (08h) frames — code, IDm (8), service count, service codes
/// (2 each), block count, block-list elements (2 bytes `1ooo iiii` + block, or 3 bytes `0ooo iiii` + block
/// LE), data — and counts their blocks once the answer (09h, IDm, status flags) says 00 00 (JIS X 6319-4
/// §7.5.5; FeliCa Lite-S user's manual §4.4.3). Everything else passes through untouched.
final class FeliCaWriteRecorder: TagTransport {
    private let base: any TagTransport
    private let state = Mutex<(blocks: [Int], writes: Int)>(([], 0))

    init(_ base: any TagTransport) {
        self.base = base
    }

    /// Blocks acknowledged, in write order and without repeats.
    var blocksWritten: [Int] { state.withLock { $0.blocks } }

    /// Block writes acknowledged, repeats counted (the attribute block is written twice).
    var blockWrites: Int { state.withLock { $0.writes } }

    var target: Target { base.target }

    func transceive(_ command: [UInt8], framing: Framing) async throws -> [UInt8] {
        let answer = try await base.transceive(command, framing: framing)
        if let blocks = Self.blocks(ofWrite: command), answer.count >= 11, answer[0] == 0x09, answer[9] == 0,
            answer[10] == 0
        {
            state.withLock { written in
                written.writes += blocks.count
                for block in blocks where !written.blocks.contains(block) { written.blocks.append(block) }
            }
        }
        return answer
    }

    func reselect() async throws {
        try await base.reselect()
    }

    /// The block numbers a WRITE WITHOUT ENCRYPTION frame addresses; nil for any other frame or one too
    /// short to decode.
    static func blocks(ofWrite frame: [UInt8]) -> [Int]? {
        guard frame.count > 10, frame[0] == 0x08 else { return nil }
        var cursor = 10 + 2 * Int(frame[9])
        guard cursor < frame.count else { return nil }
        let count = Int(frame[cursor])
        cursor += 1
        var blocks: [Int] = []
        for _ in 0..<count {
            guard cursor < frame.count else { return nil }
            let isShort = frame[cursor] & 0x80 != 0
            let length = isShort ? 2 : 3
            guard cursor + length <= frame.count else { return nil }
            blocks.append(isShort ? Int(frame[cursor + 1]) : Int(frame[cursor + 1]) | Int(frame[cursor + 2]) << 8)
            cursor += length
        }
        return blocks
    }
}
