/// The commands the agent answers on `<base>/<id>/request/<command>`.
package enum CommandName: String, Sendable, CaseIterable, Codable {
    /// Write an NDEF message (`records` or `ndef_hex`).
    case write
    /// Empty the NDEF area (NDEF-format the tag).
    case format
    /// Make the tag read-only for good. Disabled unless `commands.lock.enabled`.
    case lock
    /// Read the whole tag and return it as JSON or as a Flipper / Proxmark3 / MFD / hex file.
    case dump
    /// End a queued or waiting request (`{"id":…}` names it).
    case cancel
    /// Write raw MIFARE Classic blocks with a known key (`blocks`, `key`, `key_type`, `allow_trailer`).
    case writeBlocks = "write_blocks"
    /// Start, pause, resume or cancel the reader's encode job (docs/tagging-station.md).
    case job
    /// Light the reader's LED and sound its buzzer, and run `feedback.exec` (`light`, `beeps`): touches no tag.
    case feedback
}
