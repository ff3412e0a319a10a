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

/// The ISO 14443-A classifier rules, contributed by the families (issue 19): assembled, they classify
/// every ATQA/SAK exactly as the one table in Identification/ did before.
@Suite struct ClassifierRulesTests {
    typealias Rule = CardClassifier.Rule

    /// The table as it stood in CardClassifier.swift, in its order.
    static let before: [Rule] = [
        Rule(atqaMask: 0xFFFF, atqaValues: [0x0344, 0x0304], saks: [0x20], type: .mifareDesfire),
        Rule(atqaMask: 0x0000, atqaValues: [], saks: [0x20, 0x28, 0x38], type: .smartMX),
        Rule(atqaMask: 0xFFFF, atqaValues: [0x0044], saks: [0x00], type: .mifareUltralight),
        Rule(atqaMask: 0xFF0F, atqaValues: [0x0004], saks: [0x09], type: .mifareMini),
        Rule(atqaMask: 0xFF0F, atqaValues: [0x0004], saks: [0x08], type: .mifareClassic1K),
        Rule(atqaMask: 0xFF0F, atqaValues: [0x0002], saks: [0x18], type: .mifareClassic4K),
        Rule(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x08], type: .mifarePlusSL1_2K),
        Rule(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x18], type: .mifarePlusSL1_4K),
        Rule(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x10], type: .mifarePlusSL2_2K),
        Rule(atqaMask: 0xFFFF, atqaValues: [0x0004, 0x0002, 0x0044, 0x0042], saks: [0x11], type: .mifarePlusSL2_4K),
        Rule(atqaMask: 0xF0FF, atqaValues: [0x0004, 0x0002, 0x0048], saks: [0x00], type: .smartMX),
        Rule(atqaMask: 0x0000, atqaValues: [], saks: [0x00], type: .mifareUltralight),
        Rule(atqaMask: 0x0000, atqaValues: [], saks: [0x08], type: .mifareClassic1K),
        Rule(atqaMask: 0x0000, atqaValues: [], saks: [0x09], type: .mifareMini),
        Rule(atqaMask: 0x0000, atqaValues: [], saks: [0x18], type: .mifareClassic4K),
    ]

    /// The same rules, only in other places and order.
    @Test func theFamiliesContributeTheSameRules() {
        #expect(Set(CardClassifier.rules) == Set(Self.before))
        #expect(CardClassifier.rules.count == Self.before.count)
        // Each rule's type belongs to the family that contributes it.
        for family in TagFamilies.all {
            for rule in family.classifierRules {
                #expect(TagFamilies.family(for: rule.type)?.name == family.name, "\(family.name): \(rule.type)")
            }
        }
    }

    /// Every SAK with every ATQA a rule names (and their neighbours under the masks), no ATQA and a
    /// one-byte ATQA: the first matching rule gives the same type as before.
    @Test func everyATQAAndSAKClassifiesAsBefore() {
        var atqas: Set<UInt16> = [0x0000, 0x0C00, 0x1234, 0xFFFF]
        for rule in Self.before {
            for value in rule.atqaValues {
                atqas.formUnion([value, value | 0x0040, value | 0x0100, value | 0x0400, value | 0x00F0, value ^ 0x0001])
            }
        }
        func classified(_ rules: [Rule], atqa: UInt16, sak: UInt8) -> CardType? {
            rules.first { $0.matches(atqa: atqa, sak: sak) }?.type
        }
        for sak in UInt8.min...UInt8.max {
            for atqa in atqas {
                let target = Target(uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [UInt8(atqa >> 8), UInt8(atqa & 0xFF)], sak: sak)
                let expected = classified(Self.before, atqa: atqa, sak: sak) ?? .unknown(atqa: target.atqa, sak: sak)
                #expect(CardClassifier.classify(target) == expected, "ATQA \(atqa) SAK \(sak)")
            }
            let noATQA = Target(uid: [0x04, 1, 2, 3], atqa: [], sak: sak)
            let expected = Self.before.first { $0.atqaValues.isEmpty && $0.saks.contains(sak) }?.type
                ?? .unknown(atqa: [], sak: sak)
            #expect(CardClassifier.classify(noATQA) == expected, "no ATQA, SAK \(sak)")
        }
    }
}
