// libFuzzer harness: the Proxmark3 JSON importer (mfu, mfc v2), as `nfcbridge import --format pm3json`
// runs it, and the export of what it read back to Proxmark3 JSON (fuzz/README.md).
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let dump = try? DumpImporter.importDump(bytes, format: .pm3json) {
        _ = try? dump.exportProxmark3JSON(partial: true)
    }
    return 0
}
