// libFuzzer harness: the signed-request checker (RequestSignatureVerifier.check) (fuzz/README.md).
// The first byte picks the mode: even, the input is the raw payload (any envelope, any JSON);
// odd, the rest is the inner request and is signed with the harness's key, so the checks after
// the HMAC (ts, nonce, the nonce book, the window arithmetic at Int64.min / Int64.max) are reached.
import Foundation
import NFCBridge

let key = Array("fuzz-signature-key-0123456789abcdef".utf8)
let verifier = RequestSignatureVerifier(key: key, windowSeconds: 300, nonceCapacity: 64)
let topic = "nfc/fuzz/request/write"
// As the router reads a request when a signature key is set: up to twice the payload limit.
let limit = 2 * CommandPolicy().maximumPayloadBytes

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let now = Date(timeIntervalSince1970: 1_767_225_600)
    if mode % 2 == 0 {
        _ = verifier.check(topic: topic, payload: RequestPayload(rest, limit: limit), now: now)
    } else {
        let inner = String(decoding: rest, as: UTF8.self)
        guard let sig = RequestSignature.signature(key: key, topic: topic, body: Array(inner.utf8)),
            let envelope = try? JSONSerialization.data(withJSONObject: ["signed": inner, "sig": sig])
        else { return 0 }
        _ = verifier.check(topic: topic, payload: RequestPayload(Array(envelope), limit: limit), now: now)
    }
    return 0
}
