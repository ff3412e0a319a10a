// libFuzzer harness: the YAML configuration (libyaml through YAMLDocument, then the schema) (fuzz/README.md).
import NFCBridge

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? ConfigurationLoader.parse(yaml: String(decoding: bytes, as: UTF8.self), source: "fuzz.yaml", hostName: "fuzz")
    return 0
}
