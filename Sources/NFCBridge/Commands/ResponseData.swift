/// The `data` object of a response, kept typed until the response is encoded: what a command found,
/// the facts of a failure, the wait of a `waiting` answer, where a canceled request was, or — for a
/// result read back from the persisted result cache — the stored object as it was written.
package enum ResponseData: Sendable, Equatable, Encodable {
    /// `{}`.
    case empty
    /// What `command` found on the tag (``CommandOutcome``).
    case outcome(any CommandOutcome, of: CommandName)
    /// Facts about a failure (`pages_written`).
    case failure(CommandErrorDetails)
    /// `waiting`: how long the request waits for a tag (`wait_for_tag_s`).
    case waiting(seconds: Double)
    /// A `cancel` that worked: `canceled: true` and where the request was (`state`).
    case canceled(CancelState)
    /// A final result read back from the result cache's file, written again as it was stored.
    case stored(StoredJSON)

    /// Where a canceled request was.
    package enum CancelState: String, Sendable, Encodable {
        /// In the queue.
        case queued
        /// Waiting for a tag.
        case waiting
    }

    /// The members of each kind of data.
    private enum CodingKeys: String, CodingKey { case waitForTagSeconds = "wait_for_tag_s", canceled, state }

    /// The object: the outcome's or the details' own members, or those of the kind.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .empty:
            _ = encoder.container(keyedBy: CodingKeys.self)
        case let .outcome(outcome, _):
            try outcome.encode(to: encoder)
        case let .failure(details):
            try details.encode(to: encoder)
        case let .waiting(seconds):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(seconds, forKey: .waitForTagSeconds)
        case let .canceled(state):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(true, forKey: .canceled)
            try container.encode(state, forKey: .state)
        case let .stored(value):
            try value.encode(to: encoder)
        }
    }

    /// Equal kinds with equal values (an outcome: of the same command, type and values).
    package static func == (lhs: ResponseData, rhs: ResponseData) -> Bool {
        switch (lhs, rhs) {
        case (.empty, .empty): true
        case let (.outcome(left, leftCommand), .outcome(right, rightCommand)):
            leftCommand == rightCommand && left.isEqual(to: right)
        case let (.failure(left), .failure(right)): left == right
        case let (.waiting(left), .waiting(right)): left == right
        case let (.canceled(left), .canceled(right)): left == right
        case let (.stored(left), .stored(right)): left == right
        default: false
        }
    }
}

extension CommandOutcome {
    /// True when `other` is an outcome of the same type with the same values.
    func isEqual(to other: any CommandOutcome) -> Bool {
        (other as? Self) == self
    }
}
