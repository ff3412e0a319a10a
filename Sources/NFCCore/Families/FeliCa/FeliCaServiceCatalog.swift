/// The plain (keyless) services a FeliCa dump asks for with REQUEST SERVICE: the NDEF pair, then
/// service numbers 0–15 with each keyless attribute (JIS X 6319-4 §7.3.3: 09h random R/W, 0Bh random
/// read-only, 0Dh cyclic R/W, 0Fh cyclic read-only). Upstream listed 09h/0Bh twice instead of the
/// cyclic 0Dh/0Fh [BUG].
public enum FeliCaServiceCatalog {
    /// A service code with a label for facts and file names.
    public struct Service: Sendable, Hashable {
        /// The 16-bit code: number << 6 | attribute.
        public var code: UInt16
        public var label: String

        /// The code in wire order (little-endian), as dump files name it.
        public var wireBytes: [UInt8] { [UInt8(code & 0xFF), UInt8(code >> 8)] }
    }

    /// Keyless attributes and their names.
    static let attributes: [(attribute: UInt16, name: String)] = [
        (0x09, "Random Read/Write"), (0x0B, "Random Read-Only"), (0x0D, "Cyclic Read/Write"), (0x0F, "Cyclic Read-Only"),
    ]

    /// NDEF read/write services first, then numbers 0–`maxServiceNumber` × attributes, without duplicates
    /// (0009h/000Bh keep their NDEF names).
    public static func candidates(maxServiceNumber: Int = 15) -> [Service] {
        var services = [
            Service(code: FeliCaCommand.ndefReadService, label: "NDEF Read Service"),
            Service(code: FeliCaCommand.ndefWriteService, label: "NDEF Write Service"),
        ]
        for number in 0...max(0, min(maxServiceNumber, 0x3FF)) {
            for entry in attributes {
                let code = UInt16(number) << 6 | entry.attribute
                if !services.contains(where: { $0.code == code }) {
                    services.append(Service(code: code, label: "\(entry.name) Service #\(number)"))
                }
            }
        }
        return services
    }
}
