import FoundationEssentials
import Glibc

/// The retained `<base>/<id>/reader` state: the reader's availability, the second availability
/// dimension next to `status` (agent up × reader up).
package struct ReaderStatus: Sendable, Equatable, Encodable {
    /// What state the reader is in.
    package enum State: String, Sendable, Equatable, Codable, CaseIterable {
        /// The agent has started and not tried to open the reader yet (it is not known to be absent).
        case starting
        /// Open and polling.
        case ok
        /// Cannot be opened (unplugged, busy, not configured): retried with back-off.
        case absent
        /// Open, but polls keep failing; or the port is there but the reader does not answer
        /// (``NFCCore/NFCError/readerUnresponsive(_:)``): closed and reopened with back-off.
        case error
    }

    /// The state.
    package var state: State
    /// The device: the connection string once open, else the configured one (nil = libnfc's default).
    package var device: String?
    /// Since when (wall clock).
    package var since: Date
    /// Why, when not ok.
    package var detail: String?

    /// Creates a status.
    package init(state: State, device: String?, since: Date, detail: String? = nil) {
        self.state = state
        self.device = device
        self.since = since
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey { case state, device, since, detail }

    /// `{"state":"ok","device":"pn532_uart:/dev/ttyS0","since":"…"}` (+ `detail`); `device` is
    /// `null` when neither configured nor open.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(device, forKey: .device)
        try container.encode(Timestamp.string(since), forKey: .since)
        try container.encodeIfPresent(detail, forKey: .detail)
    }
}
