/// The ISO/IEC 14443-4 answer to select (ATS) of a type A card, split as the standard lays it out
/// (ISO/IEC 14443-4:2018 §5.2, Figure 4): TL (the length, not kept: ``CardInfo/ats`` holds the ATS
/// without it), the format byte T0, the interface bytes TA(1), TB(1), TC(1) each present when T0
/// bit 5, 6, 7 (b5 = 10h, b6 = 20h, b7 = 40h) says so (§5.2.3), then the historical bytes T1 … Tk.
public struct AnswerToSelect: Sendable, Equatable {
    /// Format byte T0: FSCI in bits 4..1, the presence of TA(1), TB(1), TC(1) in bits 5, 6, 7.
    public var t0: UInt8
    public var ta1: UInt8?
    public var tb1: UInt8?
    public var tc1: UInt8?
    /// T1 … Tk.
    public var historicalBytes: [UInt8]

    /// T0's presence bits of TA(1), TB(1), TC(1) (§5.2.3).
    static let ta1Present: UInt8 = 0x10
    static let tb1Present: UInt8 = 0x20
    static let tc1Present: UInt8 = 0x40
}

extension AnswerToSelect {
    /// Splits `ats` (without TL); nil when it is empty or ends before an interface byte T0 announces.
    public init?(withoutLength ats: [UInt8]) {
        guard let t0 = ats.first else { return nil }
        var interface: [UInt8?] = []
        var next = 1
        for bit in [Self.ta1Present, Self.tb1Present, Self.tc1Present] {
            guard t0 & bit != 0 else {
                interface.append(nil)
                continue
            }
            guard next < ats.count else { return nil }
            interface.append(ats[next])
            next += 1
        }
        self.t0 = t0
        self.ta1 = interface[0]
        self.tb1 = interface[1]
        self.tc1 = interface[2]
        self.historicalBytes = Array(ats[next...])
    }
}
