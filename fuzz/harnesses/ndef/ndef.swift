// libFuzzer harness: NDEF message decoding, strict and relaxed (fuzz/README.md).
import NFCCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    for leniency in [NDEFLeniency.strict, .relaxed] {
        guard let message = try? NDEFMessage(bytes: bytes, leniency: leniency) else { continue }
        // Everything a scan publishes of a decoded message.
        for record in message.records {
            _ = record.displayType
            _ = record.displayValue
        }
        _ = try? message.bytes
    }
    return 0
}
