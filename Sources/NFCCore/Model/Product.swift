/// A row of a family's product table (``Type2Product``, ``DESFireProduct``, ``FeliCaIC``): what
/// ``Product`` holds, so identification stores the row it found rather than its name.
public protocol ProductRow: Sendable {
    /// The row's product name ("NTAG213 TT", "MIFARE DESFire EV2 8K", "FeliCa Lite-S (RC-S966)").
    var name: String { get }
}

/// The exact product identification found (``CardInfo/product``): the family table's row, typed, and the
/// name every output (JSON, CLI, MQTT) renders. A product read from a file is only a name; the file's
/// import gives it its row where the family knows one (``TagFamilyFiles/product(named:type:)``).
///
/// Two products are equal when their names are: a file keeps only the name, and a dump read back from
/// its own export is the same dump.
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

    /// The row, when it is one of `Row`'s table (nil for another family's row or a bare name).
    public func row<Row: ProductRow>(as type: Row.Type) -> Row? { row as? Row }

    public var description: String { name }

    public static func == (lhs: Product, rhs: Product) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
