import NFCCore

/// Which Type 2 product a ``VirtualType2Tag`` behaves as.
public enum VirtualType2Model: Sendable, Hashable {
    case ultralight, ultralightC, ultralightEV1_11, ultralightEV1_21
    case ntag203, ntag210, ntag212, ntag213, ntag215, ntag216
    /// Any GET_VERSION answer with a memory of `totalPages` pages. Commands follow the product
    /// ``GetVersionTable`` finds for `version`; configuration pages (AUTH0, ACCESS, PWD, PACK) and
    /// dynamic lock bits only exist when that product's memory map has exactly `totalPages` pages.
    case custom(version: [UInt8], totalPages: Int)

    /// The model of a Type 2 card type (nil for other families). The generic `.mifareUltralight` type
    /// maps to the original Ultralight.
    public init?(cardType: CardType) {
        let models: [CardType: VirtualType2Model] = [
            .mifareUltralight: .ultralight, .mifareUltralightC: .ultralightC,
            .mifareUltralightEV1_MF0UL11: .ultralightEV1_11, .mifareUltralightEV1_MF0UL21: .ultralightEV1_21,
            .ntag203: .ntag203, .ntag210: .ntag210, .ntag212: .ntag212, .ntag213: .ntag213, .ntag215: .ntag215,
            .ntag216: .ntag216,
        ]
        guard let model = models[cardType] else { return nil }
        self = model
    }

    /// The product row that decides which commands the tag answers.
    public var product: Type2Product {
        switch self {
        case .ultralight: .ultralight
        case .ultralightC: .ultralightC
        case .ultralightEV1_11: .ultralightEV1_MF0UL11
        case .ultralightEV1_21: .ultralightEV1_MF0UL21
        case .ntag203: .ntag203
        case .ntag210: .ntag210
        case .ntag212: .ntag212
        case .ntag213: .ntag213
        case .ntag215: .ntag215
        case .ntag216: .ntag216
        case let .custom(version, _):
            {
                var product = GetVersionTable.lookup(version)?.product ?? .ultralight
                product.features.insert(.getVersion)
                return product
            }()
        }
    }

    /// The GET_VERSION answer, nil for products without the command.
    public var version: [UInt8]? {
        switch self {
        case .ultralight, .ultralightC, .ntag203: nil
        case .ultralightEV1_11: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]
        case .ultralightEV1_21: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03]
        case .ntag210: [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03]
        case .ntag212: [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0E, 0x03]
        case .ntag213: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
        case .ntag215: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        case .ntag216: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
        case let .custom(version, _): version
        }
    }

    /// Pages in the whole memory.
    public var totalPages: Int {
        if case let .custom(_, totalPages) = self { return max(totalPages, 4) }
        return product.memoryMap?.totalPages ?? 16
    }

    /// The memory map the tag enforces (config pages, dynamic locks); nil for a custom model whose
    /// page count differs from its product's map.
    public var memoryMap: Type2MemoryMap? {
        guard let map = product.memoryMap, map.totalPages == totalPages else { return nil }
        return map
    }
}
