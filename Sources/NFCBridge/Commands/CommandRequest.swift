import NFCCore

/// A validated request: what to do, on which tag, until when, and how to answer.
package struct CommandRequest: Sendable, Equatable {
    /// The command.
    package var command: CommandName
    /// The request's `id` as sent (a string or an integer): the idempotency key, echoed in every
    /// response.
    package var id: RequestID
    /// Zigbee2MQTT's `transaction`, echoed when sent.
    package var transaction: TransactionID?
    /// Act only on the tag with this UID.
    package var uid: [UInt8]?
    /// How long to wait for a tag, in milliseconds (0: only a tag in the field now).
    package var waitForTagMilliseconds: Int64
    /// Monotonic milliseconds after which the request must not act (`ttl_s` / `expires_at`).
    package var expiresAtMonotonic: Int64?
    /// What to do.
    package var action: CommandAction

    /// Creates a request.
    package init(
        command: CommandName, id: RequestID, transaction: TransactionID? = nil, uid: [UInt8]? = nil,
        waitForTagMilliseconds: Int64, expiresAtMonotonic: Int64? = nil, action: CommandAction
    ) {
        self.command = command
        self.id = id
        self.transaction = transaction
        self.uid = uid
        self.waitForTagMilliseconds = waitForTagMilliseconds
        self.expiresAtMonotonic = expiresAtMonotonic
        self.action = action
    }

    /// The key of ``id`` in the result cache and the queue (``RequestID/key``).
    package var key: String { id.key }

    /// The cache key of an id value.
    package static func key(for id: RequestID) -> String { id.key }
}

/// The command-specific part of a request.
package enum CommandAction: Sendable, Equatable {
    /// Write `message` (raw NDEF message bytes), authenticating with `password` first when given.
    case write(message: [UInt8], password: [UInt8]?)
    /// NDEF-format the tag (empty message).
    case format(password: [UInt8]?)
    /// Lock the tag, which must be `uid` (the request's `confirm`, equal to its `uid`).
    case lock(uid: [UInt8], password: [UInt8]?)
    /// Dump the tag and export it in `format`; `partial` lets a format that ``ExportFormat/takesPartial``
    /// write a dump read only in part (up to the first page or block not read).
    case dump(format: ExportFormat, partial: Bool = false)
    /// Cancel the queued or waiting request with this id.
    case cancel
    /// Write raw MIFARE Classic `blocks` with `key` as key `keyType`; sector trailers only with
    /// `allowTrailer` (``WriteBlocksRequest``).
    case writeBlocks(blocks: [ClassicBlockData], key: [UInt8], keyType: ClassicKeyType, allowTrailer: Bool)
    /// Set a PWD_AUTH password and AUTH0 on the tag, which must be `uid` (an encode job's `protect`
    /// step; no MQTT command sends it).
    case protect(uid: [UInt8], settings: Type2PasswordProtect.Settings)
    /// Start, pause, resume or cancel the encode job (answered by the job runner, never queued).
    case job(JobRequest)
    /// Show `signal` to the person at the reader (no tag involved).
    case feedback(IndicatorSignal)

}
