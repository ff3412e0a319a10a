import NFCCore

extension AgentConfiguration {
    /// The reader device and polling.
    package struct ReaderSettings: Sendable, Equatable {
        /// libnfc connection string (`pn532_uart:/dev/ttyS0`); nil = the first device libnfc finds.
        package var device: String?
        /// Modulations polled for, in order.
        package var modulations: [Modulation] = [.iso14443a, .felica212]
        /// Poll timeout and the pause between two presence checks, in milliseconds.
        package var intervalMilliseconds = 250
        /// First retry delay after the reader could not be opened, in milliseconds; doubles up to
        /// ``retryMaximumMilliseconds`` (not a configuration key).
        package var retryInitialMilliseconds = 1000
        /// Longest retry delay, in milliseconds (not a configuration key).
        package var retryMaximumMilliseconds = 30_000
        /// Which backend drives the reader (`reader.backend`).
        package var backend: ReaderBackend = .auto
        /// How the PC/SC backend shares the card with other programs (`reader.pcsc_share_mode`).
        package var pcscShareMode: PCSCShareMode = .exclusive
        package init() {}

        /// Every modulation the PN53x readers libnfc drives can poll: what the CLI's one-shot
        /// commands (`scan`, `write`, `dump`, …) look for, as docs/cli.md says.
        package static let everyPN53xModulation: [Modulation] = [.iso14443a, .iso14443b, .felica212, .felica424]

        /// The `reader` keys.
        static let keys: [ConfigurationKey] = [
            ConfigurationKey("reader.device", \.reader.device, .text),
            ConfigurationKey("reader.backend", \.reader.backend, .choice),
            ConfigurationKey("reader.pcsc_share_mode", \.reader.pcscShareMode, .choice),
            ConfigurationKey("reader.polling.modulations", \.reader.modulations, .choices()),
            ConfigurationKey("reader.polling.interval_ms", \.reader.intervalMilliseconds, .int(in: 10...10_000)),
        ]
    }

    /// The reader backend (`reader.backend`, docs/getting-started.md "PC/SC readers").
    package enum ReaderBackend: String, Sendable, Equatable, CaseIterable, Encodable {
        /// libnfc (PN532 on UART/I2C/SPI, ACR122U / PN533 on USB without pcscd).
        case libnfc
        /// pcsc-lite's pcscd (ACR122U, ACR1252U, ACR1552U, …; the one backend for ISO 15693).
        case pcsc
        /// The connstring decides: `pcsc` / `pcsc:…` is PC/SC, any other (or none) libnfc.
        case auto
    }

    /// `SCardConnect`'s share mode for the PC/SC backend (`reader.pcsc_share_mode`).
    package enum PCSCShareMode: String, Sendable, Equatable, CaseIterable, Encodable {
        /// No other program reaches the card while the agent holds it (the default).
        case exclusive
        /// Other PC/SC programs may connect to the card too.
        case shared
    }
}
