import NFCCore
import PN532Sim
import Testing

/// A virtual Type 2 tag, identified like the agent identifies a tag, with the commands an operation sends.
struct Type2OperationFixture {
    static let uid: [UInt8] = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]

    let tag: VirtualType2Tag
    let transport: VirtualTagTransport
    let info: CardInfo
    /// Commands sent before the operation (identification).
    let commandsBefore: Int

    /// Makes a factory-fresh `model`, lets `prepare` change it, identifies it.
    init(_ model: VirtualType2Model, prepare: (VirtualType2Tag) -> Void = { _ in }) async throws {
        tag = VirtualType2Tag(model: model, uid: Self.uid)
        prepare(tag)
        transport = VirtualTagTransport(tag: tag)
        info = try await TagIdentifier.identify(transport)
        commandsBefore = transport.sentCommands.count
    }

    /// Commands the operation sent.
    var operationCommands: [[UInt8]] { Array(transport.sentCommands.dropFirst(commandsBefore)) }

    /// Pages the operation sent a WRITE (A2h) for, in order (repeats included).
    var writeCommandPages: [Int] { operationCommands.filter { $0.first == 0xA2 && $0.count == 6 }.map { Int($0[1]) } }

    /// Bytes of `page` in the tag's memory.
    func page(_ number: Int) -> [UInt8] { Array(tag.memory[number * 4..<number * 4 + 4]) }

    /// The NDEF message the tag's memory holds now (TLV walk over the whole memory).
    var storedMessage: [UInt8]? { NFCForumTLV.extractMessage(fromMemory: tag.memory) }
}

/// An NDEF message of exactly `length` bytes (≥ 6; not 262–264): one MIME record `a/b` with a filler
/// payload, short-record form while the payload fits in one length byte.
func ndefMessage(length: Int, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    let short = length - 6
    let payloadLength = short <= 255 ? short : length - 9
    guard length >= 6, payloadLength >= 0, short <= 255 || payloadLength > 255 else {
        Issue.record("no single-record message has \(length) bytes", sourceLocation: sourceLocation)
        return []
    }
    let payload = (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    let record = NDEFRecord(tnf: .mimeMedia, type: Array("a/b".utf8), payload: payload)
    let bytes = (try? NDEFMessage(records: [record]).bytes) ?? []
    #expect(bytes.count == length, sourceLocation: sourceLocation)
    return bytes
}

/// Runs `body` and returns the ``TagOperationError`` it throws (recording an issue when it succeeds).
func operationError<T>(sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: () async throws(TagOperationError) -> T) async -> TagOperationError? {
    do {
        _ = try await body()
        Issue.record("expected the operation to fail", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
