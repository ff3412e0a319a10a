import NFCCore

/// The steps an ``EncodeStation`` runs on a tag it holds: write (with its read-back), lock, protect.
extension EncodeStation {
    /// A failed step, and whether the write had finished before it (the lock or the protection failed).
    struct Failure: Error {
        var error: CommandError
        var afterWrite: Bool
    }

    /// The `protect` step's settings: the spec's key looked up in `passwords` (the keys file's
    /// `ntag_password` entries); nil without the step. A key that is not there is `invalid_request`
    /// naming it (never its bytes).
    package static func protection(_ spec: EncodeJobSpec, passwords: [Type2Password]) throws(CommandError) -> Type2PasswordProtect.Settings? {
        guard let step = spec.steps.protect else { return nil }
        guard let password = passwords.first(where: { $0.name == step.key }) else {
            let known = passwords.map(\.name)
            throw CommandError.invalid(
                "protect.key",
                "no ntag_password key named '\(step.key)' in auth.keys_file"
                    + (known.isEmpty ? " (the agent has no such keys: set auth.keys_file)" : " (it has \(known.joined(separator: ", ")))"))
        }
        return Type2PasswordProtect.Settings(password: password, auth0: step.auth0, protectsReads: step.protectsReads)
    }

    /// Writes `message`, then locks and protects when asked, with the reader to itself; nil when it
    /// all worked. A `resumed` tag the job protected before its stop refuses the write without the
    /// password (`auth_required`): it is written again with the job's password, and the protection
    /// finds itself already done.
    func write(_ message: [UInt8], lock: Bool, protection: Type2PasswordProtect.Settings?, resumed: Bool,
               tag: PresentTag, info: CardInfo) async -> Failure? {
        do {
            try await access.withExclusiveAccess(to: tag) { [executor] transport in
                var password: [UInt8]?
                do throws(CommandError) {
                    do throws(CommandError) {
                        _ = try await executor.execute(.write(message: message, password: nil), on: transport, identified: info)
                    } catch let error where error.code == .authRequired && resumed && protection != nil {
                        password = protection?.password.password.revealed
                        _ = try await executor.execute(.write(message: message, password: password), on: transport, identified: info)
                    }
                } catch {
                    throw Failure(error: error, afterWrite: false)
                }
                try await Self.lockAndProtect(executor, transport, lock: lock, protection: protection, password: password,
                                              tag: tag, info: info)
            }
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(error: CommandError.fromJob(error), afterWrite: false)
        }
    }

    /// The lock and protection of a tag that holds its message already (torn during its lock, found
    /// read-only when shown again), with the reader to itself; nil when both were done and verified.
    /// The lock sets only the bits still missing; a tag protected before asks for the job's password.
    func finish(lock: Bool, protection: Type2PasswordProtect.Settings?, tag: PresentTag, info: CardInfo) async -> Failure? {
        do {
            try await access.withExclusiveAccess(to: tag) { [executor] transport in
                do {
                    try await Self.lockAndProtect(executor, transport, lock: lock, protection: protection, password: nil,
                                                  tag: tag, info: info)
                } catch let failure as Failure where failure.error.code == .authRequired && protection != nil {
                    try await Self.lockAndProtect(executor, transport, lock: lock, protection: protection,
                                                  password: protection?.password.password.revealed, tag: tag, info: info)
                }
            }
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(error: CommandError.fromJob(error), afterWrite: true)
        }
    }

    /// The `lock` and `protect` steps after the write, on `transport`.
    private static func lockAndProtect(_ executor: any CommandExecuting, _ transport: any TagTransport, lock: Bool,
                                       protection: Type2PasswordProtect.Settings?, password: [UInt8]?, tag: PresentTag,
                                       info: CardInfo) async throws(Failure) {
        do throws(CommandError) {
            if lock { _ = try await executor.execute(.lock(uid: tag.uid, password: password), on: transport, identified: info) }
            if let protection {
                _ = try await executor.execute(.protect(uid: tag.uid, settings: protection), on: transport, identified: info)
            }
        } catch {
            throw Failure(error: error, afterWrite: true)
        }
    }

    enum FailureKind { case nothingWritten, tagGone, badWrite }

    /// What a failure means for the serial: refused before the first WRITE (nothing on the tag), the
    /// tag gone (torn), or a write that went wrong on a tag still there.
    static func kind(of failure: Failure) -> FailureKind {
        switch failure.error.code {
        case .tagRemoved, .readerUnavailable, .canceled: return .tagGone
        case .capacityExceeded, .tagLocked, .unsupported, .authRequired, .authFailed, .tagMismatch, .invalidRequest, .notBlank:
            // These are checked before the first WRITE (TagOperations' contract): nothing was written
            // unless the write had finished and the lock or the protection refused.
            return failure.afterWrite ? .badWrite : .nothingWritten
        default: return .badWrite
        }
    }
}
