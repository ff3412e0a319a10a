// libFuzzer harness: the dump.keys_file reader (ClassicKeysFile.parse: one MIFARE Classic key per
// line, comments, blank lines) on any bytes (fuzz/README.md).
import NFCBridge

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? ClassicKeysFile.parse(bytes, path: "fuzz-keys")
    return 0
}
