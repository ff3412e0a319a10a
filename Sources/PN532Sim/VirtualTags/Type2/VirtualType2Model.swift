import enum NFCCore.CardType

/// Which Type 2 product a ``VirtualType2Tag`` behaves as. Every behaviour comes from the simulator's
/// own rows (``VirtualType2Product``, written from the datasheets).
public enum VirtualType2Model: Sendable, Hashable {
    case ultralight, ultralightC, ultralightEV1_11, ultralightEV1_21
    case ntag203, ntag210, ntag212, ntag213, ntag215, ntag216
    /// Any GET_VERSION answer with a memory of `totalPages` pages. Commands follow the row that answers
    /// `version` (``VirtualType2Product/answering(_:)``; an unknown answer gets READ, WRITE,
    /// COMPATIBILITY_WRITE and GET_VERSION only); configuration pages (AUTH0, ACCESS, PWD, PACK) and
    /// dynamic lock bits only exist when that row's memory map has exactly `totalPages` pages.
    case custom(version: [UInt8], totalPages: Int)

    /// Model ↔ product row ↔ the card type NFCCore's dumps name it by (used by
    /// ``VirtualType2Tag/init(dump:)`` only; no behaviour comes from the card type).
    private static let rows: [(model: VirtualType2Model, product: VirtualType2Product, cardType: CardType)] = [
        (.ultralight, .ultralight, .mifareUltralight), (.ultralightC, .ultralightC, .mifareUltralightC),
        (.ultralightEV1_11, .ultralightEV1_MF0UL11, .mifareUltralightEV1_MF0UL11),
        (.ultralightEV1_21, .ultralightEV1_MF0UL21, .mifareUltralightEV1_MF0UL21),
        (.ntag203, .ntag203, .ntag203), (.ntag210, .ntag210, .ntag210), (.ntag212, .ntag212, .ntag212),
        (.ntag213, .ntag213, .ntag213), (.ntag215, .ntag215, .ntag215), (.ntag216, .ntag216, .ntag216),
    ]

    /// The named models, in table order.
    public static let named: [VirtualType2Model] = rows.map(\.model)

    /// The model of a Type 2 card type (nil for other families). The generic `.mifareUltralight` type
    /// maps to the original Ultralight.
    public init?(cardType: CardType) {
        guard let row = Self.rows.first(where: { $0.cardType == cardType }) else { return nil }
        self = row.model
    }

    /// The product row that decides which commands the tag answers and how.
    public var product: VirtualType2Product {
        if case let .custom(version, _) = self {
            return VirtualType2Product.answering(version) ?? .unknown(version: version)
        }
        return Self.rows.first { $0.model == self }?.product ?? .ultralight
    }

    /// The GET_VERSION answer, nil for products without the command (MF0ULX1 §10.1, NTAG210_212 §10.1,
    /// NTAG213/215/216 §10.1; MF0ICU1, MF0ICU2 and NTAG203 have none).
    public var version: [UInt8]? {
        if case let .custom(version, _) = self { return version }
        return product.version
    }

    /// Pages in the whole memory.
    public var totalPages: Int {
        if case let .custom(_, totalPages) = self { return max(totalPages, 4) }
        return product.layout.totalPages
    }

    /// The memory map the tag enforces (config pages, dynamic locks); nil for a custom model whose
    /// page count differs from its row's map.
    public var memoryMap: VirtualType2Layout? {
        let layout = product.layout
        return layout.totalPages == totalPages ? layout : nil
    }
}
