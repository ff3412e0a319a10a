/// What the emulated chip does with one host command.
enum PN532Outcome {
    /// Answer with `data` (the bytes after `D5 code+1`) once `delay` of chip time has passed.
    case answer([UInt8], delay: Duration)
    /// Keep the command pending until the field offers an answer or the wait gives up.
    case wait(PN532Wait)
    /// Answer with the application-level error frame (unknown command, bad parameters).
    case syntaxError

    /// An immediate answer.
    static func answer(_ data: [UInt8]) -> PN532Outcome { .answer(data, delay: .zero) }
}

/// A command that waits for a tag (InAutoPoll, InListPassiveTarget with MxRtyPassiveActivation FF).
/// The session thread runs `probe` again whenever the field changes, and sends `giveUpAnswer`
/// when `timeLimit` has passed (never, when nil). A host ACK or a new frame drops the wait.
struct PN532Wait {
    /// How long the chip keeps trying; nil = until a tag answers.
    var timeLimit: Duration?
    /// The answer when a tag answers now, else nil.
    var probe: () -> [UInt8]?
    /// The answer when the chip gives up.
    var giveUpAnswer: [UInt8]
}
