// libFuzzer harness: the simulator's scenario reader (YAML, tag specs, timeline) (fuzz/README.md).
import PN532Sim

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? Scenario.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml")
    return 0
}
