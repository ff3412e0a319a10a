// libFuzzer harness: the PN532 frame decoder, fed the input in pieces the first byte sizes (the
// serial line hands it bytes as they arrive) (fuzz/README.md).
import PN532Sim

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let first = bytes.first else { return 0 }
    let piece = Int(first % 16) + 1
    var decoder = PN532FrameDecoder()
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + piece, bytes.count)
        _ = decoder.decode(Array(bytes[offset..<end]))
        offset = end
    }
    // The whole input at once must not behave differently in kind (no crash either way).
    var whole = PN532FrameDecoder()
    _ = whole.decode(Array(bytes.dropFirst()))
    return 0
}
