// libFuzzer harness: the pm3 importer, as `nfcbridge import --format pm3` runs it (fuzz/README.md).
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? DumpImporter.importDump(bytes, format: .pm3)
    return 0
}
