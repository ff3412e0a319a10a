import NFCCore

/// Everything the agent is configured with: `config.yaml` read by ``ConfigurationLoader``, then
/// the environment and command-line overrides. Every field has the default the example file
/// (`config/nfcbridge.example.yaml`) documents.
public struct AgentConfiguration: Sendable, Equatable {
    /// The agent id used in topics (`<base>/<id>/…`) and as the Home Assistant device id:
    /// `[a-z0-9_-]`, default the host name sanitised by ``AgentIdentifier``.
    public var id: String
    /// The reader and how it polls.
    public var reader = ReaderSettings()
    /// The broker connection.
    public var mqtt = MQTTSettings()
    /// When a tag counts as scanned / removed.
    public var presence = PresenceSettings()
    /// Dumps published on scan.
    public var dump = DumpSettings()
    /// Home Assistant MQTT discovery.
    public var homeAssistant = HomeAssistantSettings()
    /// Log level.
    public var log = LogSettings()
    /// Seconds between two `<base>/<id>/health` publications.
    public var healthIntervalSeconds = 60
    /// Where the spool and the event sequence number live (systemd `StateDirectory=`).
    public var stateDirectory = "/var/lib/nfcbridge"
    /// Where ``stateDirectory`` was set, for messages: `config.yaml:12: state_dir`, `--state-dir` or
    /// `STATE_DIRECTORY` (systemd's `StateDirectory=`); nil for the default.
    public var stateDirectorySource: String?
    /// Bounds of the offline spool.
    public var spool = SpoolSettings()
    /// Which remote commands are allowed (used by the command router).
    public var commands = CommandSettings()

    /// A configuration with every default and the given id.
    public init(id: String) {
        self.id = id
    }

    /// The reader device and polling.
    public struct ReaderSettings: Sendable, Equatable {
        /// libnfc connection string (`pn532_uart:/dev/ttyS0`); nil = the first device libnfc finds.
        public var device: String?
        /// Modulations polled for, in order.
        public var modulations: [Modulation] = [.iso14443a, .felica212]
        /// Poll timeout and the pause between two presence checks, in milliseconds.
        public var intervalMilliseconds = 250
        /// First retry delay after the reader could not be opened, in milliseconds; doubles up to
        /// ``retryMaximumMilliseconds`` (not a configuration key).
        public var retryInitialMilliseconds = 1000
        /// Longest retry delay, in milliseconds (not a configuration key).
        public var retryMaximumMilliseconds = 30_000
        /// Which backend drives the reader (`reader.backend`).
        public var backend: ReaderBackend = .auto
        /// How the PC/SC backend shares the card with other programs (`reader.pcsc_share_mode`).
        public var pcscShareMode: PCSCShareMode = .exclusive
        public init() {}

        /// Every modulation the PN53x readers libnfc drives can poll: what the CLI's one-shot
        /// commands (`scan`, `write`, `dump`, …) look for, as docs/cli.md says.
        public static let everyPN53xModulation: [Modulation] = [.iso14443a, .iso14443b, .felica212, .felica424]
    }

    /// The reader backend (`reader.backend`, docs/getting-started.md "PC/SC readers").
    public enum ReaderBackend: String, Sendable, Equatable, CaseIterable {
        /// libnfc (PN532 on UART/I2C/SPI, ACR122U / PN533 on USB without pcscd).
        case libnfc
        /// pcsc-lite's pcscd (ACR122U, ACR1252U, ACR1552U, …; the one backend for ISO 15693).
        case pcsc
        /// The connstring decides: `pcsc` / `pcsc:…` is PC/SC, any other (or none) libnfc.
        case auto
    }

    /// `SCardConnect`'s share mode for the PC/SC backend (`reader.pcsc_share_mode`).
    public enum PCSCShareMode: String, Sendable, Equatable, CaseIterable {
        /// No other program reaches the card while the agent holds it (the default).
        case exclusive
        /// Other PC/SC programs may connect to the card too.
        case shared
    }

    /// The MQTT protocol version spoken to the broker.
    public enum MQTTProtocolVersion: String, Sendable, Equatable, CaseIterable {
        /// MQTT 3.1.1.
        case v311 = "3.1.1"
        /// MQTT 5.
        case v5 = "5"
    }

    /// The broker connection.
    public struct MQTTSettings: Sendable, Equatable {
        /// The broker URL (`mqtt://host:1883`, `mqtts://host:8883`), checked with `MQTTBrokerAddress`.
        public var url = "mqtt://localhost:1883"
        /// True for an `mqtts://` URL.
        public var usesTLS = false
        /// The base topic (`nfc`): no wildcards, no leading or trailing slash.
        public var baseTopic = "nfc"
        /// User name, if the broker wants one.
        public var username: String?
        /// File holding the password (first line). Never published; the password itself is in ``password``.
        public var passwordFile: String?
        /// The password, from ``passwordFile`` or `NFCBRIDGE_MQTT_PASSWORD`. Never logged or published.
        public var password: Secret?
        /// PEM CA bundle for TLS.
        public var caFile: String?
        /// PEM client certificate for TLS client authentication.
        public var certFile: String?
        /// PEM client key for TLS client authentication.
        public var keyFile: String?
        /// Protocol version.
        public var protocolVersion: MQTTProtocolVersion = .v5
        /// `mqtt.tls_insecure`: do not verify the broker at all (neither its certificate chain nor its
        /// host name). Lab use only: logged as a warning at every connect and shown in `info`.
        public var tlsInsecure = false
        /// `mqtt.stall_after_s`: a publish the broker has not acknowledged for this long marks it as
        /// stalled (a warning in the log, `health.mqtt.stalled`).
        public var stallAfterSeconds = 10
        /// `mqtt.recycle_after_s`: a publish still unacknowledged after this long drops the
        /// connection, which is then made again (`health.mqtt.recycles`); at least ``stallAfterSeconds``.
        public var recycleAfterSeconds = 60
        /// `mqtt.max_packet_size`: the largest packet the agent sends (the broker's
        /// `max_packet_size`). An event beyond it becomes a `payload_too_large` error event instead of
        /// being sent. Under MQTT 5 the broker says its own limit in CONNACK; under 3.1.1 it cannot,
        /// and it disconnects a client that sends more, so set this there. `nil`: MQTT's own limit.
        public var maxPacketSize: Int?
        public init() {}
    }

    /// How presence turns into `scanned` / `removed` events.
    public enum PresenceMode: String, Sendable, Equatable, CaseIterable {
        /// One `scanned` on arrival, one `removed` after the removal grace.
        case presence
        /// `scanned` again every `rearm_ms` while the tag stays.
        case `repeat`
    }

    /// Presence and debounce timings.
    public struct PresenceSettings: Sendable, Equatable {
        /// presence or repeat.
        public var mode: PresenceMode = .presence
        /// A tag is removed after this long without being seen (no flapping on a marginal read).
        public var removalGraceMilliseconds = 600
        /// In repeat mode, the period of repeated `scanned` events.
        public var rearmMilliseconds = 2000
        /// A re-tap of the same UID within this window of its last `scanned` is not reported again.
        public var minIntervalMilliseconds = 1000
        public init() {}
    }

    /// Dumps on scan.
    public struct DumpSettings: Sendable, Equatable {
        /// Publish `event/dump` after every `scanned`.
        public var onScan = false
        /// Key dictionary file for MIFARE Classic dumps.
        public var keysFile: String?
        /// The keys a Classic dump tries: those of ``keysFile`` first, then the well-known defaults.
        public var classicKeys: ClassicKeyDictionary = .standard
        public init() {}
    }

    /// Home Assistant discovery.
    public struct HomeAssistantSettings: Sendable, Equatable {
        /// Publish discovery documents.
        public var enabled = true
        /// The discovery prefix.
        public var prefix = "homeassistant"
        public init() {}
    }

    /// Logging.
    public struct LogSettings: Sendable, Equatable {
        /// The lowest level written.
        public var level: LogLevel = .info
        public init() {}
    }

    /// Spool bounds: the oldest buffered events are dropped (and counted) beyond them.
    public struct SpoolSettings: Sendable, Equatable {
        /// Most events kept.
        public var maxEvents = 10_000
        /// Most bytes kept on disk.
        public var maxBytes = 16 * 1024 * 1024
        /// Oldest event kept, in seconds (`spool.max_age_s`; default 7 days).
        public var maxAgeSeconds = 7 * 24 * 3600
        public init() {}
    }

    /// Remote commands. ``lockEnabled``, the signature settings and ``idempotencyWindowSeconds``
    /// are configuration keys; the limits are fixed (and documented in docs/mqtt.md, "Commands") but
    /// live here so they have one source.
    public struct CommandSettings: Sendable, Equatable {
        /// Allow the irreversible `lock` command (off by default).
        public var lockEnabled = false
        /// `commands.require_signature`: every request must be signed (``signatureKey``). With a key
        /// and without this, only `lock` must be signed.
        public var requireSignature = false
        /// `commands.signature_key_file`: the file holding the HMAC key (its first line).
        public var signatureKeyFile: String?
        /// The HMAC-SHA256 key: the bytes of the first line of ``signatureKeyFile``. Never published.
        public var signatureKey: Secret?
        /// `commands.signature_window_s`: how far a signed request's `ts` may be from the agent's clock.
        public var signatureWindowSeconds = 300
        /// `commands.idempotency_window_s`: how long a final result is kept for a repeated `id`.
        public var idempotencyWindowSeconds = 86_400
        /// `wait_for_tag_s` when a request does not say.
        public var defaultWaitForTagSeconds: Double = 30
        /// The largest `wait_for_tag_s` accepted.
        public var maximumWaitForTagSeconds: Double = 3600
        /// Requests larger than this are refused (`invalid_request`).
        public var maximumPayloadBytes = 256 * 1024
        /// Requests that may wait behind the running one.
        public var queueCapacity = 8
        /// Final results remembered for repeated ids.
        public var resultCacheCapacity = 256
        public init() {}

        /// Every default (``CommandPolicy``'s arguments start from these).
        public static let defaults = CommandSettings()
    }
}

/// A secret string (the MQTT password) that never shows up in logs, descriptions or dumps.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself: hand it to the MQTT client and nowhere else.
    public let value: String

    /// Wraps `value`.
    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
