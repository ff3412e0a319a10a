// libFuzzer harness: the NFC Forum Type 2 TLV walk over a tag memory image (fuzz/README.md).
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let memory = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = NFCForumTLV.extractMessage(fromMemory: memory)
    // The walk from the data area and from an offset the first byte picks, with and without control TLVs.
    let start = memory.first.map { Int($0) % 64 } ?? 0
    for controlTLVs in [true, false] {
        _ = NFCForumTLV.walk(memory: memory, end: memory.count, controlTLVs: controlTLVs)
        _ = NFCForumTLV.walk(memory: memory, start: start, end: memory.count, controlTLVs: controlTLVs)
    }
    return 0
}
