// libFuzzer harness: the MQTT request parser (fuzz/README.md). The first byte picks the command
// (the topic's last level), the rest is the payload.
import FoundationEssentials
import NFCBridge

let commands = ["write", "format", "lock", "dump", "cancel", "nope"]
let policy = CommandPolicy(lockEnabled: true)
let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let first = bytes.first else { return 0 }
    let command = commands[Int(first) % commands.count]
    _ = CommandParser.parse(command: command, payload: Array(bytes.dropFirst()), policy: policy, now: now, monotonic: 1_000)
    return 0
}
