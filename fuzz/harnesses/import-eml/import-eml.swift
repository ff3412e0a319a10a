// libFuzzer harness: the Proxmark3 `.eml` importer, as `nfcbridge import --format eml` runs it, and the
// Classic exports (eml, key file) of what it read (fuzz/README.md).
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let dump = try? DumpImporter.importDump(bytes, format: .eml) {
        _ = try? dump.exportProxmark3EML(partial: true)
        _ = try? dump.exportProxmark3Keys()
    }
    return 0
}
