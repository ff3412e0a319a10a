import Foundation
import Glibc
import Testing

@testable import NFCBridge

/// A state file the agent may not open says who owns it, who the agent runs as and the `chown` that
/// repairs it (issue 23: "cannot read …/spool.jsonl" with no reason stopped the service). The tests run
/// as root, whom permissions never refuse: the hint is checked on files given to another user, with
/// the errno a refusal would carry.
@Suite struct OwnershipHintTests {
    /// A uid no test machine's password database names.
    static let stranger: uid_t = 54_321

    static func owned(by uid: uid_t, in dir: StateDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let file = dir.path + "/spool.jsonl"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x\n".utf8)))
        #expect(chown(file, uid, uid) == 0)
        return file
    }

    @Test func aFileOfAnotherUserNamesBothAndTheChown() throws {
        let dir = StateDirectory()
        let file = try Self.owned(by: Self.stranger, in: dir)
        let agent = OwnershipHint.name(of: geteuid())
        let hint = try #require(OwnershipHint.text(path: file, errno: EACCES))
        #expect(hint == "; \(file) belongs to uid 54321 and the agent runs as \(agent): "
            + "give the state directory back to the agent with `sudo chown -R \(agent): \(dir.path)`")
        #expect(OwnershipHint.text(path: file, errno: EPERM) == hint)
        // Through the storage error the agent reports: code, what, the system's reason, then the hint.
        let error = StorageError(code: .stateDirUnusable, "cannot open \(file)", errno: EACCES, path: file)
        #expect(error.message == "cannot open \(file): \(String(cString: strerror(EACCES)))" + hint)
    }

    /// A file that does not exist yet (a temporary file the agent creates) is judged by its folder.
    @Test func aMissingFileIsJudgedByItsFolder() throws {
        let dir = StateDirectory()
        _ = try Self.owned(by: Self.stranger, in: dir)
        #expect(chown(dir.path, Self.stranger, Self.stranger) == 0)
        let hint = try #require(OwnershipHint.text(path: dir.path + "/seq.tmp", errno: EACCES))
        #expect(hint.hasPrefix("; \(dir.path) belongs to uid 54321"))
        #expect(hint.hasSuffix(": \(dir.path)`"))
    }

    /// Other errors, and files the agent owns (their mode is the cause, which strerror says), get none.
    @Test func noHintWhereOwnershipIsNotTheCause() throws {
        let dir = StateDirectory()
        let file = try Self.owned(by: geteuid(), in: dir)
        #expect(OwnershipHint.text(path: file, errno: EACCES) == nil)
        let other = try Self.owned(by: Self.stranger, in: dir)
        #expect(OwnershipHint.text(path: other, errno: ENOSPC) == nil)
        #expect(OwnershipHint.text(path: "/nonexistent-\(UUID().uuidString)/x", errno: EACCES) == nil)
        #expect(StorageError(code: .stateDirUnusable, "cannot open x", errno: EACCES).message
            == "cannot open x: \(String(cString: strerror(EACCES)))")
    }
}
