import NFCCore

/// Which Type 2 product a ``VirtualType2Tag`` behaves as.
public enum VirtualType2Model: Sendable, Hashable {
    case ultralight, ultralightC, ultralightEV1_11, ultralightEV1_21
    case ntag203, ntag210, ntag212, ntag213, ntag215, ntag216
    /// Any GET_VERSION answer with a memory of `totalPages` pages. Commands follow the product
    /// ``GetVersionTable`` finds for `version`; configuration pages (AUTH0, ACCESS, PWD, PACK) and
    /// dynamic lock bits only exist when that product's memory map has exactly `totalPages` pages.
    case custom(version: [UInt8], totalPages: Int)

    /// The card type of each named model: one row per ``Type2Product`` base row, which decides the
    /// commands (``product``) and the GET_VERSION answer (``version``).
    private static let cardTypes: [(model: VirtualType2Model, cardType: CardType)] = [
        (.ultralight, .mifareUltralight), (.ultralightC, .mifareUltralightC),
        (.ultralightEV1_11, .mifareUltralightEV1_MF0UL11), (.ultralightEV1_21, .mifareUltralightEV1_MF0UL21),
        (.ntag203, .ntag203), (.ntag210, .ntag210), (.ntag212, .ntag212), (.ntag213, .ntag213),
        (.ntag215, .ntag215), (.ntag216, .ntag216),
    ]

    /// The model of a Type 2 card type (nil for other families). The generic `.mifareUltralight` type
    /// maps to the original Ultralight.
    public init?(cardType: CardType) {
        guard let row = Self.cardTypes.first(where: { $0.cardType == cardType }) else { return nil }
        self = row.model
    }

    /// The product row that decides which commands the tag answers: NFCCore's base row of the model's
    /// card type, or for a custom model the row ``GetVersionTable`` finds for its version.
    public var product: Type2Product {
        if case let .custom(version, _) = self {
            var product = GetVersionTable.lookup(version)?.product ?? .ultralight
            product.features.insert(.getVersion)
            return product
        }
        let cardType = Self.cardTypes.first { $0.model == self }!.cardType
        return Type2Product.forType(cardType)!
    }

    /// The GET_VERSION answer, nil for products without the command: the bytes
    /// ``GetVersionTable/exactMatches`` holds for ``product`` (MF0ULX1 §10.1, NTAG210_212 §10.1,
    /// NTAG213/215/216 §10.1).
    public var version: [UInt8]? {
        if case let .custom(version, _) = self { return version }
        guard product.features.contains(.getVersion) else { return nil }
        return GetVersionTable.exactMatches.first { $0.value == product }?.key
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
