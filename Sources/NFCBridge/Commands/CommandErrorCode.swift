/// The stable error codes of command responses (`"error":{"code":…}`). They are published on MQTT
/// and documented in docs/mqtt.md, "Commands": never rename one.
package enum CommandErrorCode: String, Sendable, CaseIterable, Codable {
    /// Malformed JSON, a missing or unknown field, a wrong type or value, a payload over 256 KiB.
    case invalidRequest = "invalid_request"
    /// The topic names no command the agent knows.
    case unknownCommand = "unknown_command"
    /// `ttl_s` / `expires_at` passed before the command could act: nothing was done.
    case expired
    /// A request with the same `id` is still queued, waiting or running: it answers on its own.
    case duplicate
    /// The queue is full, or a `cancel` named a request that is already acting on the tag.
    case busy
    /// `wait_for_tag_s` passed and no tag came.
    case timeout
    /// `wait_for_tag_s` was 0 and no tag was in the field.
    case noTag = "no_tag"
    /// The tag is not the one the request named (`uid`).
    case tagMismatch = "tag_mismatch"
    /// Several tags are in the field and the request named none of them (`uid`): nothing was done.
    case severalTags = "several_tags"
    /// The tag left the field during the operation (`data.pages_written` lists what was written).
    case tagRemoved = "tag_removed"
    /// The tag, or this operation on it, is not supported.
    case unsupported
    /// The NDEF message does not fit the tag: nothing was written.
    case capacityExceeded = "capacity_exceeded"
    /// The tag (or its NDEF area) is read-only.
    case tagLocked = "tag_locked"
    /// The command is disabled in the configuration (`lock` unless `commands.lock.enabled`).
    case notPermitted = "not_permitted"
    /// The password was wrong (the tag refused PWD_AUTH, or a key did not authenticate).
    case authFailed = "auth_failed"
    /// The pages to change are password protected and the request gave no `password`.
    case authRequired = "auth_required"
    /// The tag did not acknowledge a write.
    case writeFailed = "write_failed"
    /// The tag acknowledged the writes but reading back found other bytes.
    case verifyFailed = "verify_failed"
    /// Reading the tag failed (a `dump` that could not finish for another reason than removal).
    case readFailed = "read_failed"
    /// The dump was read, but only in part, and the requested file format (mfd, pm3) cannot mark the
    /// pages or blocks not read: JSON and Flipper files keep partial dumps.
    case partialDump = "partial_dump"
    /// The reader is not available.
    case readerUnavailable = "reader_unavailable"
    /// A Debian library the operation needs (libcrypto, opened when first needed) could not be loaded:
    /// the message names the package to install. Nothing was done to the tag.
    case libraryUnavailable = "library_unavailable"
    /// A MIFARE Classic sector's access bits do not let the given key do the write (`write_blocks`):
    /// nothing was written.
    case accessDenied = "access_denied"
    /// The request was cancelled by `request/cancel` or by the agent shutting down: nothing was done.
    case canceled
    /// An encode job with policy `blank` was shown a tag that holds an NDEF message: not written.
    case notBlank = "not_blank"
    /// An encode job's journal in the state directory could not be written: the job stops before the
    /// next serial is issued (docs/tagging-station.md).
    case journalFailed = "journal_failed"
    /// An encode job's journal breaks its own rules (a serial issued twice): the job is not resumed.
    case journalCorrupt = "journal_corrupt"
}
