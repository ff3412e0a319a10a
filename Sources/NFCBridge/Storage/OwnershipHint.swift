import Glibc

/// What a refusal to open or create a state file adds when the system says "permission denied"
/// (EACCES, EPERM): who owns the file — or, when it does not exist, its folder — and who the agent
/// runs as, with the `chown` that gives the state directory back to the agent. The usual cause is a
/// file left by a run as another user (`sudo nfcbridge run` before the service ran as `nfcbridge`);
/// the Debian package's postinst repairs the ownership of /var/lib/nfcbridge on every configure.
enum OwnershipHint {
    /// The hint for `path` after `number` (starting with "; "); nil for another error, for a path
    /// the agent owns (its mode is the cause, which the system's reason already says) or one that
    /// cannot be looked at.
    static func text(path: String, errno number: Int32) -> String? {
        guard number == EACCES || number == EPERM else { return nil }
        var status = stat()
        var subject = path
        if lstat(path, &status) != 0 {
            subject = AtomicFile.directory(of: path)
            guard !subject.isEmpty, stat(subject, &status) == 0 else { return nil }
        }
        let agent = geteuid()
        guard status.st_uid != agent else { return nil }
        let stateDirectory = (status.st_mode & S_IFMT) == S_IFDIR ? subject : AtomicFile.directory(of: subject)
        let user = name(of: agent)
        return "; \(subject) belongs to \(name(of: status.st_uid)) and the agent runs as \(user): "
            + "give the state directory back to the agent with `sudo chown -R \(user): \(stateDirectory)`"
    }

    /// The user name of `uid` (the password database), else "uid N".
    static func name(of uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        // The name points into `buffer`: read it while the buffer is lent.
        let name: String? = buffer.withUnsafeMutableBufferPointer { storage in
            guard let base = storage.baseAddress, getpwuid_r(uid, &entry, base, storage.count, &result) == 0,
                result != nil, let pointer = entry.pw_name
            else { return nil }
            return String(cString: pointer)
        }
        return name ?? "uid \(uid)"
    }
}
