/// FeliCa IC type (PMm byte 1) → product name. Source: Sony's FeliCa IC list as carried by nfcpy
/// (`tt3_sony.py` IC_CODE_MAP): Standard, Mobile, Lite, Lite-S, Link and Plug chips.
public enum FeliCaICTable {
    /// Product name per IC type.
    static let names: [UInt8: String] = [
        0x00: "FeliCa Standard (RC-S830)", 0x01: "FeliCa Standard (RC-S915)", 0x02: "FeliCa Standard (RC-S919)",
        0x08: "FeliCa Standard (RC-S952)", 0x09: "FeliCa Standard (RC-S953)", 0x0C: "FeliCa Standard (RC-S954)",
        0x0D: "FeliCa Standard (RC-S960)", 0x20: "FeliCa Standard (RC-S962)", 0x32: "FeliCa Standard (RC-SA00/1)",
        0x35: "FeliCa Standard (RC-SA00/2)",
        0x06: "Mobile FeliCa 1.0", 0x07: "Mobile FeliCa 1.0",
        0x10: "Mobile FeliCa 2.0", 0x11: "Mobile FeliCa 2.0", 0x12: "Mobile FeliCa 2.0", 0x13: "Mobile FeliCa 2.0",
        0x14: "Mobile FeliCa 3.0", 0x15: "Mobile FeliCa 3.0", 0x16: "Mobile FeliCa 3.0", 0x17: "Mobile FeliCa 3.0",
        0x18: "Mobile FeliCa 3.0", 0x19: "Mobile FeliCa 3.0", 0x1A: "Mobile FeliCa 3.0", 0x1B: "Mobile FeliCa 3.0",
        0x1C: "Mobile FeliCa 3.0", 0x1D: "Mobile FeliCa 3.0", 0x1E: "Mobile FeliCa 3.0", 0x1F: "Mobile FeliCa 3.0",
        0xF0: "FeliCa Lite (RC-S965)",
        0xF1: "FeliCa Lite-S (RC-S966)",
        0xF2: "FeliCa Link (RC-S730) Lite-S Mode",
        0xE0: "FeliCa Plug (RC-S926)",
        0xE1: "FeliCa Link (RC-S730) Plug Mode",
    ]

    /// IC types of the Lite family (Lite, Lite-S, Link in Lite-S mode).
    static let liteFamily: Set<UInt8> = [0xF0, 0xF1, 0xF2]

    /// The product name for a PMm, or nil for an unknown IC type.
    public static func productName(pmm: [UInt8]) -> String? {
        pmm.count >= 2 ? names[pmm[1]] : nil
    }

    /// The product (its ``FeliCaIC`` row) for a PMm, or nil for an unknown IC type.
    public static func product(pmm: [UInt8]) -> Product? {
        guard pmm.count >= 2, let name = names[pmm[1]] else { return nil }
        return Product(FeliCaIC(icType: pmm[1], name: name))
    }

    /// True when the PMm names a Lite-family chip.
    public static func isLiteFamily(pmm: [UInt8]) -> Bool {
        pmm.count >= 2 && liteFamily.contains(pmm[1])
    }
}

/// One FeliCa IC of ``FeliCaICTable``: the IC type byte of the PMm and its product name.
public struct FeliCaIC: ProductRow, Hashable {
    /// PMm byte 1.
    public var icType: UInt8
    /// Product name ("FeliCa Lite-S (RC-S966)").
    public var name: String
}
