#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The emulator's side of a pseudo-terminal pair, with the slave reachable through a symlink.
///
/// The slave is put in raw mode (libnfc sets raw mode itself, other clients may not) and the
/// emulator closes its own slave descriptor, so that `poll(2)` on the master reports POLLHUP —
/// and `read(2)` EIO — whenever no client has the slave open: that is how sessions begin and end.
struct PseudoTerminal: Sendable {
    /// The master side, non-blocking.
    let masterFD: Int32
    /// The slave device, e.g. /dev/pts/7.
    let slavePath: String
    /// The stable symlink clients open.
    let linkPath: String

    /// Opens a pty and links `linkPath` to its slave. The path must not contain ':' — libnfc's
    /// connection string `pn532_uart:PATH` is split on it. An old symlink there is replaced.
    init(linkPath: String) throws(SimulatorError) {
        guard !linkPath.isEmpty, !linkPath.contains(":") else {
            throw .linkPath("'\(linkPath)' must be non-empty and contain no ':' (libnfc splits connection strings on it)")
        }
        let functions = try PTYFunctions.load()
        let master = functions.openpt(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw .pseudoTerminal("posix_openpt: \(Self.errorText())") }
        guard functions.grantpt(master) == 0, functions.unlockpt(master) == 0 else {
            let text = Self.errorText()
            Glibc.close(master)
            throw .pseudoTerminal("grantpt/unlockpt: \(text)")
        }
        var name = [CChar](repeating: 0, count: 128)
        guard functions.ptsname_r(master, &name, name.count) == 0 else {
            Glibc.close(master)
            throw .pseudoTerminal("ptsname_r: \(Self.errorText())")
        }
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            Glibc.close(master)
            throw .pseudoTerminal("open \(slavePath): \(Self.errorText())")
        }
        var attributes = termios()
        tcgetattr(slave, &attributes)
        cfmakeraw(&attributes)
        tcsetattr(slave, TCSANOW, &attributes)
        Glibc.close(slave)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)

        var status = stat()
        if lstat(linkPath, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFLNK else {
                Glibc.close(master)
                throw .linkPath("'\(linkPath)' exists and is not a symlink")
            }
            unlink(linkPath)
        }
        guard symlink(slavePath, linkPath) == 0 else {
            let text = Self.errorText()
            Glibc.close(master)
            throw .linkPath("symlink \(linkPath) → \(slavePath): \(text)")
        }
        self.masterFD = master
        self.slavePath = slavePath
        self.linkPath = linkPath
    }

    /// Puts the line back into raw mode without the claim bit libnfc sets (`CCLAIMED`,
    /// 0x80000000 in c_iflag: Linux drops it anyway, but a stale claim would lock out the next
    /// client on a kernel that kept it).
    func resetLineSettings() {
        var attributes = termios()
        guard tcgetattr(masterFD, &attributes) == 0 else { return }
        cfmakeraw(&attributes)
        attributes.c_iflag &= ~tcflag_t(0x8000_0000)
        tcsetattr(masterFD, TCSANOW, &attributes)
    }

    /// Closes the master and removes the symlink if it still points at our slave.
    func close() {
        var target = [CChar](repeating: 0, count: 256)
        let length = readlink(linkPath, &target, target.count - 1)
        if length > 0, String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == slavePath {
            unlink(linkPath)
        }
        _ = Glibc.close(masterFD)
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// posix_openpt, grantpt, unlockpt and ptsname_r from the C library. Swift's Glibc module hides
/// them (they need _XOPEN_SOURCE), so they are looked up by name once.
private struct PTYFunctions {
    let openpt: @convention(c) (Int32) -> Int32
    let grantpt: @convention(c) (Int32) -> Int32
    let unlockpt: @convention(c) (Int32) -> Int32
    let ptsname_r: @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    static func load() throws(SimulatorError) -> PTYFunctions {
        guard let handle = dlopen(nil, RTLD_NOW) else { throw .pseudoTerminal("dlopen of the C library failed") }
        func symbol(_ name: String) throws(SimulatorError) -> UnsafeMutableRawPointer {
            guard let pointer = dlsym(handle, name) else { throw .pseudoTerminal("\(name) not found in the C library") }
            return pointer
        }
        return PTYFunctions(
            openpt: unsafeBitCast(try symbol("posix_openpt"), to: (@convention(c) (Int32) -> Int32).self),
            grantpt: unsafeBitCast(try symbol("grantpt"), to: (@convention(c) (Int32) -> Int32).self),
            unlockpt: unsafeBitCast(try symbol("unlockpt"), to: (@convention(c) (Int32) -> Int32).self),
            ptsname_r: unsafeBitCast(try symbol("ptsname_r"),
                                     to: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self))
    }
}
