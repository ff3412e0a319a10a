// libFuzzer harness: format detection and import, as `nfcbridge import FILE` runs it (fuzz/README.md).
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = DumpImporter.detectFormat(bytes)
    _ = try? DumpImporter.importDump(bytes)
    return 0
}
