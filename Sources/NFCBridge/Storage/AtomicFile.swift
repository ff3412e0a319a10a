import FoundationEssentials
import Glibc

/// Small durable files in the state directory, written with POSIX calls so every step that
/// matters for crash safety (write, fsync, rename, directory fsync) is explicit.
enum AtomicFile {
    /// Creates `path` and its parents (mode 0700: the spool holds tag contents).
    static func makeDirectory(_ path: String) throws(StorageError) {
        // mkdir, parents first, with the system's reason (Foundation's createDirectory says "The file
        // doesn't exist" when a parent cannot be created).
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                let number = errno
                let which = prefix == path || prefix == "./" + path ? "" : " (creating \(prefix))"
                throw StorageError(code: .stateDirUnusable, "cannot create the state directory \(path)\(which)", errno: number, path: prefix)
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw StorageError(code: .stateDirUnusable, "the state directory \(path) is not a directory")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw StorageError(code: .stateDirUnusable, "cannot write to the state directory \(path)", errno: errno, path: path)
        }
    }

    /// Replaces `path` with `bytes` so that after a crash the file holds either the old or the new
    /// content: write a temporary file, fsync it, rename it over, fsync the directory.
    static func write(_ bytes: [UInt8], to path: String) throws(StorageError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .stateWriteFailed, "cannot create \(temporary)", errno: errno, path: temporary) }
        do throws(StorageError) {
            try writeAll(fd, bytes, path: temporary)
            guard fsync(fd) == 0 else { throw StorageError(code: .stateWriteFailed, "fsync \(temporary)", errno: errno) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let number = errno
            unlink(temporary)
            throw StorageError(code: .stateWriteFailed, "cannot rename \(temporary) to \(path)", errno: number, path: path)
        }
        syncDirectory(of: path)
    }

    /// The content of `path` (a regular file of at most `limit` bytes; with `prefix`, the first
    /// `limit` bytes of a larger one), or nil when it does not exist.
    static func read(_ path: String, limit: Int, prefix: Bool = false) throws(StorageError) -> [UInt8]? {
        do throws(BoundedFile.Failure) {
            return try BoundedFile.read(path, limit: limit, prefix: prefix)
        } catch {
            throw unreadable(path, error)
        }
    }

    /// Reads `path` through `body` a chunk at a time (``BoundedFile/stream(_:check:_:)``: a file of
    /// any size in bounded memory); false when it does not exist.
    static func stream(_ path: String, _ body: (ArraySlice<UInt8>) -> Bool) throws(StorageError) -> Bool {
        do throws(BoundedFile.Failure) {
            return try BoundedFile.stream(path, body)
        } catch {
            throw unreadable(path, error)
        }
    }

    /// A state file that cannot be read, with the repair when its owner is the reason.
    private static func unreadable(_ path: String, _ failure: BoundedFile.Failure) -> StorageError {
        let hint = failure.errno.flatMap { OwnershipHint.text(path: path, errno: $0) } ?? ""
        return StorageError(code: .stateDirUnusable, failure.message + hint)
    }

    /// Writes every byte (retrying short writes and EINTR).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(StorageError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw StorageError(code: .stateWriteFailed, "cannot write \(path)", errno: errno)
            }
            offset += written
        }
    }

    /// `name` inside `directory` (NSString's `appendingPathComponent`, without Foundation).
    static func path(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The directory part of `path` (NSString's `deletingLastPathComponent`: "/a/b" → "/a",
    /// "/a" → "/", "a" → "").
    static func directory(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        var directory = path[..<slash]
        while directory.count > 1 && directory.hasSuffix("/") { directory = directory.dropLast() }
        return String(directory)
    }

    /// fsyncs the directory holding `path` so a rename or a new file survives a power cut.
    static func syncDirectory(of path: String) {
        let directory = Self.directory(of: path)
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
