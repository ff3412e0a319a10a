// libFuzzer harness: a JSON dump through every exporter (fuzz/README.md). The JSON is read without the
// importer's bounds check (TagDump.importJSON), so each exporter's own bounds are what is tested.
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let dump = try? TagDump.importJSON(bytes) else { return 0 }
    _ = try? dump.exportJSON(prettyPrinted: true)
    _ = try? dump.exportJSON(prettyPrinted: false)
    _ = dump.exportHex()
    _ = dump.exportBinary()
    _ = try? dump.exportFlipperNFC()
    for partial in [false, true] {
        _ = try? dump.exportLibNFCMFD(partial: partial)
        _ = try? dump.exportProxmark3MFU(partial: partial)
        _ = try? dump.exportProxmark3JSON(partial: partial)
        _ = try? dump.exportProxmark3EML(partial: partial)
        _ = try? dump.exportLibNFCMFD64(partial: partial)
    }
    _ = try? dump.exportProxmark3Keys()
    _ = try? dump.exportAll()
    _ = dump.summary
    return 0
}
