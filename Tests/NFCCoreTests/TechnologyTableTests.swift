@testable import NFCCore
import Testing

/// The technology table (issue 19): one row per ``Modulation``, looked up by identification and the
/// PC/SC ATR instead of switches over the modulation.
@Suite struct TechnologyTableTests {
    /// Every modulation has its row, in ``Modulation`` order, keyed by itself.
    @Test func everyModulationHasItsRow() {
        #expect(Technology.all.map(\.modulation) == Modulation.allCases)
        for modulation in Modulation.allCases {
            #expect(modulation.technology.modulation == modulation)
        }
        #expect(Modulation.allCases.filter(\.isFeliCa) == [.felica212, .felica424])
    }

    /// Every coarse type a row gives belongs to a family of the registry (the Type 1 row owns Jewel's),
    /// so no technology classifies to a type nothing answers for.
    @Test func everyCoarseTypeHasAFamily() {
        for technology in Technology.all {
            guard let type = technology.coarseType else { continue }
            #expect(TagFamilies.family(for: type) != nil, "\(technology.name): \(type)")
        }
        #expect(Modulation.jewel.technology.coarseType == .jewelTopaz)
        #expect(Modulation.iso14443a.technology.coarseType == nil)
    }

    /// The PC/SC part 3 standard bytes (§3.1.3.2.3) of the ATR's table name the technologies of the
    /// table's rows; FeliCa's 11h reads as 212 kbit/s, and only "no information" names none.
    @Test func atrStandardBytesNameTheirTechnology() {
        let expected: [UInt8: Modulation] = [
            0x01: .iso14443a, 0x02: .iso14443a, 0x03: .iso14443a, 0x05: .iso14443b, 0x06: .iso14443b,
            0x07: .iso14443b, 0x09: .iso15693, 0x0A: .iso15693, 0x0B: .iso15693, 0x0C: .iso15693, 0x11: .felica212,
        ]
        for standard in ContactlessATR.standards {
            #expect(standard.modulation == expected[standard.code], "\(standard.name)")
        }
        // The byte a reader writes is each row's first (the simulator's ATRs use it).
        #expect(Technology.all.map { $0.atrStandards.first } == [0x03, 0x07, 0x11, 0x11, 0x0B, nil])
    }
}
