/// A row of a family's product table (``Type2Product``, ``DESFireProduct``, ``FeliCaIC``): what
/// ``Product`` holds, so identification stores the row it found rather than its name. Hashable: a
/// product is equal to another when they hold equal rows.
public protocol ProductRow: Sendable, Hashable {
    /// The row's product name ("NTAG213 TT", "MIFARE DESFire EV2 8K", "FeliCa Lite-S (RC-S966)").
    var name: String { get }
}

/// The exact product identification found (``CardInfo/product``): the family table's row, typed, and the
/// name every output (JSON, CLI, MQTT) renders. A product read from a file is only a name; the file's
/// import gives it its row where the family knows one (``TagFamilyFiles/product(named:for:)``), so a dump
/// read back from its own export is the same dump. A family reads its row through its typed view
/// (``Product/type2``, ``Product/iso15693``).
///
/// Two products are equal when they hold the same row of the same table under the same name, or are the
/// same bare name: a bare name is never equal to a row's product.
public struct Product: Sendable, Hashable, CustomStringConvertible {
    /// The name outputs render.
    public let name: String
    private let row: (any ProductRow)?

    /// The product of a table row, named as the row names it.
    public init(_ row: some ProductRow) {
        self.init(row, named: row.name)
    }

    /// The product of a table row, with the name a file spelled it with (kept so the file reads back as written).
    public init(_ row: some ProductRow, named name: String) {
        self.name = name
        self.row = row
    }

    /// A product known only by name (from a file whose family has no row of that name).
    public init(named name: String) {
        self.name = name
        row = nil
    }

    /// The row, when it is one of `Row`'s table (nil for another family's row or a bare name): what a
    /// family's typed view of the product reads, next to its row type.
    func row<Row: ProductRow>(as type: Row.Type) -> Row? { row as? Row }

    public var description: String { name }

    /// The row as a hashable value: equal for equal rows of one table, nil for a bare name.
    private var rowIdentity: AnyHashable? { row.map { AnyHashable($0) } }

    public static func == (lhs: Product, rhs: Product) -> Bool {
        lhs.name == rhs.name && lhs.rowIdentity == rhs.rowIdentity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(rowIdentity)
    }
}
