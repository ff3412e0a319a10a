/// `request/job`: start (or resume), pause, resume or cancel the reader's encode job
/// (docs/tagging-station.md, docs/mqtt.md "Encode jobs").
package enum JobRequest: Sendable, Equatable {
    /// Start job `job` with `spec`, or — `spec` nil — resume the job of that id from its journal.
    case start(job: String, spec: EncodeJobSpec?)
    /// Take no new tag until `resume` (`job`, when given, must be the running job's id).
    case pause(job: String?)
    /// Take tags again.
    case resume(job: String?)
    /// End the job after the tag in hand: no serial is issued any more.
    case cancel(job: String?)

    /// The `action` names.
    static let actions = ["start", "pause", "resume", "cancel"]

    /// The fields of `request/job` besides `id` and `transaction`.
    static let fields: Set<String> = EncodeJobSpec.fields.union(["action"])

    /// Parses the members of a `request/job` (without `id`, `transaction`).
    init(_ object: [String: JSONValue]) throws(CommandError) {
        let action = object["action"].map { $0.stringValue ?? "" } ?? "start"
        var rest = object
        rest["action"] = nil
        switch action {
        case "start":
            guard let id = rest["job"]?.stringValue else { throw .invalid("job", "the job id (a string) is required") }
            if rest.count == 1 {
                guard EncodeJobSpec.isValidID(id) else { throw .invalid("job", "'\(id)' is not a job id") }
                self = .start(job: id, spec: nil)
            } else {
                self = .start(job: id, spec: try EncodeJobSpec(json: rest))
            }
        case "pause", "resume", "cancel":
            if let extra = rest.keys.sorted().first(where: { $0 != "job" }) {
                throw .invalid(extra, "\(action) takes only `job` (optional: the running job's id)")
            }
            if let job = rest["job"], job.stringValue == nil { throw .invalid("job", "a string") }
            let job = rest["job"]?.stringValue
            self = action == "pause" ? .pause(job: job) : action == "resume" ? .resume(job: job) : .cancel(job: job)
        default:
            throw .invalid("action", "one of \(Self.actions.joined(separator: ", "))")
        }
    }

    /// The action's name.
    var action: String {
        switch self {
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        }
    }
}

/// What runs the reader's encode job (``JobRunner`` in the agent), as the command router sees it:
/// it answers `request/job`, and while a job runs the router refuses the commands that change a
/// tag (`write`, `format`, `lock`, `write_blocks`) with `busy`.
package protocol JobHandling: Sendable {
    /// True while a job is running or paused.
    var isRunning: Bool { get }

    /// Carries out `request`. `lockRefusal`: why a job with the `lock` step may not start or resume
    /// now (``CommandPolicy/jobLockRefusal(signed:hasKey:)``); nil when it may.
    func handle(_ request: JobRequest, lockRefusal: CommandError?) async throws(CommandError) -> JobOutcome
}

/// `data` of a `request/job` answer: the job, the action done, and where the job is now
/// (`running`, `paused`, `canceled`, `finished`); the counts are on the retained `state/job`.
package struct JobOutcome: CommandOutcome {
    /// The job id.
    package var job: String
    /// The action carried out.
    package var action: String
    /// Where the job is now.
    package var state: String

    /// Creates an outcome.
    package init(job: String, action: String, state: String) {
        self.job = job
        self.action = action
        self.state = state
    }
}
