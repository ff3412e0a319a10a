import Glibc

/// Reading a file named by a user or left in the state directory, bounded where it enters: it is
/// opened without blocking (a FIFO named as a password file does not hang start-up), refused
/// unless it is a regular file, and read to a stated limit (a 1 GB keys file is refused, not read
/// into memory).
enum BoundedFile {
    /// Why a file was not read; `message` names the path and says what to do.
    struct Failure: Error, Sendable, Equatable {
        var message: String
        /// The system's error number when a call failed (open, fstat, read).
        var errno: Int32? = nil
    }

    /// The bytes of `path`, at most `limit` of them. A larger file is refused, unless `prefix`: then
    /// its first `limit` bytes are returned (a caller that only needs the first line). Nil when
    /// `path` does not exist. `check` sees the status of the file opened (not of the path, which may
    /// change in between) and returns why it is refused, or nil (a keys file's mode and owner).
    static func read(_ path: String, limit: Int, prefix: Bool = false, check: ((stat) -> String?)? = nil)
        throws(Failure) -> [UInt8]?
    {
        var bytes: [UInt8] = []
        let found = try stream(path, check: { status in
            if let problem = check?(status) { return problem }
            guard prefix || Int(status.st_size) <= limit else {
                return "'\(path)' is \(status.st_size) bytes; at most \(limit) are read: is it the right file?"
            }
            return nil
        }) { chunk in
            bytes += chunk.prefix(limit + 1 - bytes.count)
            return bytes.count <= limit
        }
        guard found else { return nil }
        // The file grew while it was read.
        if bytes.count > limit {
            guard prefix else { throw Failure(message: "'\(path)' is more than \(limit) bytes: is it the right file?") }
            bytes.removeLast(bytes.count - limit)
        }
        return bytes
    }

    /// Reads `path` from its start through `body`, one chunk (at most 64 KiB) at a time, until its
    /// end or until `body` returns false: a file of any size in the memory of one chunk. False when
    /// `path` does not exist. Opened and checked as ``read(_:limit:prefix:check:)`` does.
    static func stream(_ path: String, check: ((stat) -> String?)? = nil, _ body: (ArraySlice<UInt8>) -> Bool)
        throws(Failure) -> Bool
    {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let number = errno
            if number == ENOENT { return false }
            throw failure(path, number)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw failure(path, errno)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(message: "'\(path)' is \(kind(status.st_mode)), not a regular file: name a file")
        }
        if let problem = check?(status) { throw Failure(message: problem) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure(path, errno) }
            if count == 0 || !body(chunk[0..<count]) { return true }
        }
    }

    /// A failed call on `path` with the system's error `number`.
    private static func failure(_ path: String, _ number: Int32) -> Failure {
        Failure(message: "'\(path)' cannot be read: \(String(cString: strerror(number)))", errno: number)
    }

    /// What a file that is not regular is, for the message.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
