import FoundationEssentials
import Glibc

/// A libnfc connection string (`driver[:port[:speed]]`) checked before libnfc sees it, so a typo
/// gets its own message instead of libnfc's one "nfc_open failed" for every kind of mistake; or the
/// PC/SC backend's `pcsc[:<reader name or index>]`.
///
/// libnfc splits a connstring on ':' into at most three fields (libnfc 1.8 `connstring_decode`,
/// nfc-internal.c) and picks the driver by the first field; a serial, I2C or SPI driver needs the
/// port, a USB driver finds its device itself (`acr122_usb`, or `acr122_usb:BUS:DEVICE`).
struct Connstring {
    /// How a driver reaches its reader: whether the second field is a device file it cannot do without.
    enum Bus: String {
        case uart = "a serial port (/dev/ttyS0, /dev/ttyAMA0, /dev/ttyUSB0…)"
        case i2c = "an I2C bus (/dev/i2c-1…)"
        case spi = "an SPI device (/dev/spidev0.0…)"
        case usb = "no port (or BUS:DEVICE from lsusb)"
        /// Not libnfc: the PC/SC backend, `pcsc` or `pcsc:<reader name or index>` (`nfcbridge readers`).
        case pcsc = "a PC/SC reader name or index (pcsc:0, pcsc:ACS ACR1252 1S CL Reader PICC 00 00)"

        var needsPort: Bool { self == .uart || self == .i2c || self == .spi }
    }

    /// The drivers Debian 12's libnfc 1.8 is built with (its `libnfc.driver.*` log categories), with
    /// an example port for the messages.
    static let drivers: [(name: String, bus: Bus, example: String)] = [
        ("pn532_uart", .uart, "pn532_uart:/dev/ttyS0"),
        ("pn532_i2c", .i2c, "pn532_i2c:/dev/i2c-1"),
        ("pn532_spi", .spi, "pn532_spi:/dev/spidev0.0"),
        ("acr122_usb", .usb, "acr122_usb"),
        ("pn53x_usb", .usb, "pn53x_usb"),
        ("acr122s", .uart, "acr122s:/dev/ttyUSB0"),
        ("arygon", .uart, "arygon:/dev/ttyUSB0"),
    ]

    /// libnfc's connstring buffer (`NFC_BUFSIZE_CONNSTRING`, nfc-types.h) holds 1023 characters.
    static let maximumLength = 1023

    let driver: String
    let bus: Bus

    /// Checks `text`; the message of the error says what is wrong and shows a correct example.
    init(_ text: String) throws(CLIError) {
        let known = Self.drivers.map(\.name).joined(separator: ", ") + ", or pcsc:<reader> for the PC/SC backend"
        guard !text.isEmpty else { throw Self.problem(text, "empty (use e.g. pn532_uart:/dev/ttyS0)") }
        // PC/SC reader names hold spaces ("ACS ACR122U PICC Interface 00 00"): everything after `pcsc:` is the name.
        if text == "pcsc" || text.hasPrefix("pcsc:") {
            guard !text.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                throw Self.problem(text, "malformed: it contains control characters")
            }
            driver = "pcsc"
            bus = .pcsc
            return
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw Self.problem(text, "longer than libnfc's \(Self.maximumLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) else {
            throw Self.problem(text, "malformed: it contains spaces or control characters")
        }
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count <= 3, !fields.contains(where: \.isEmpty) else {
            throw Self.problem(text, "malformed: expected driver[:port[:speed]] with no empty field, e.g. pn532_uart:/dev/ttyS0:115200")
        }
        guard let entry = Self.drivers.first(where: { $0.name == fields[0] }) else {
            throw Self.problem(text, "unknown libnfc driver '\(fields[0])' (known: \(known))")
        }
        if entry.bus.needsPort && fields.count < 2 {
            throw Self.problem(text, "the \(entry.name) driver needs a port, \(entry.bus.rawValue), e.g. \(entry.example)")
        }
        if entry.bus.needsPort, fields.count == 3, UInt32(fields[2]) == nil {
            throw Self.problem(text, "malformed: the speed '\(fields[2])' is not a number of baud (or Hz), e.g. \(entry.example):115200")
        }
        driver = entry.name
        bus = entry.bus
    }

    private static func problem(_ text: String, _ detail: String) -> CLIError {
        CLIError(code: "reader_unavailable", message: "connstring '\(text)': \(detail)", exitCode: 2)
    }
}
