import Synchronization

/// A lossy serial line between the host and the emulated PN532 (`nfcbridge-sim --drop-one-in N
/// --drop-seed S`): each byte, either way, is dropped with probability 1/N, drawn from a seeded
/// PRNG (SplitMix64) so a run can be repeated byte for byte. It models a noisy UART or USB-serial
/// bridge: a dropped byte spoils the frame it was in, and the host's driver sees a bad length or
/// checksum, or a frame that never ends.
public final class LinkLoss: Sendable {
    /// One byte in this many is dropped.
    public let oneIn: UInt64
    private let state: Mutex<(seed: UInt64, dropped: Int)>

    /// A line that drops one byte in `oneIn` (at least 1), reproducibly for `seed`.
    public init(oneIn: UInt64, seed: UInt64) {
        self.oneIn = max(oneIn, 1)
        state = Mutex((seed, 0))
    }

    /// How many bytes were dropped so far.
    public var dropped: Int { state.withLock { $0.dropped } }

    /// `bytes` as the other side receives them.
    func pass(_ bytes: [UInt8]) -> [UInt8] {
        state.withLock { state in
            bytes.filter { _ in
                // SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014).
                state.seed &+= 0x9E37_79B9_7F4A_7C15
                var z = state.seed
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                let drop = z % oneIn == 0
                if drop { state.dropped += 1 }
                return !drop
            }
        }
    }
}
