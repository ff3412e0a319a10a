import Glibc

/// A Debian shared library opened with dlopen(3) when a command first needs it, instead of by ld.so
/// before `main` (issue 25): a one-shot `dump` of a Type 2 or Classic tag needs neither libcrypto
/// nor libmosquitto, yet every process start paid for both — libcrypto and libssl (libmosquitto's)
/// are linked `-z now`, so ld.so bound 4,000 of the 6,980 symbols it looked up at start for them.
///
/// The library is the same Debian one the package depends on (`Depends:` keeps it installed); only
/// when it is bound changes. A library, once opened, stays open for the life of the process, as a
/// linked one does. Each caller keeps its functions in a typed table (`LibCrypto`, `LibMosquitto`),
/// each function's type taken from the library's own header (`__typeof__` in the module's shim.h).
package struct DynamicLibrary: Sendable {
    /// The name dlopen(3) was given (the soname, e.g. `libcrypto.so.3`).
    package let soname: String
    /// The Debian package that ships it, for the error message.
    package let debianPackage: String
    // The handle as a bit pattern: dlopen's handle is only ever passed back to dlsym, never
    // dereferenced, and never closed, so the value can be shared between threads.
    private let handle: UInt

    /// Opens `soname` (`RTLD_NOW | RTLD_LOCAL`: every function bound now, none of its symbols visible
    /// to other libraries). Throws ``DynamicLibraryError`` `library_unavailable` with dlerror(3)'s text
    /// when the library cannot be loaded.
    package static func open(_ soname: String, debianPackage: String) throws(DynamicLibraryError) -> DynamicLibrary {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw .libraryUnavailable(soname: soname, debianPackage: debianPackage, reason: lastError())
        }
        return DynamicLibrary(soname: soname, debianPackage: debianPackage, handle: UInt(bitPattern: handle))
    }

    /// The function `name` as `F`, a `@convention(c)` function type (the header's, see above). Throws
    /// ``DynamicLibraryError/functionTypeMismatch(soname:symbol:type:)`` when `F` is not pointer-sized
    /// (a programming error: not a C function type), checked before the library is asked, and
    /// ``DynamicLibraryError/symbolMissing(soname:debianPackage:symbol:)`` when the library has no such
    /// symbol (an older version than the package depends on).
    package func function<F>(_ name: String, as type: F.Type = F.self) throws(DynamicLibraryError) -> F {
        guard MemoryLayout<F>.size == MemoryLayout<UnsafeMutableRawPointer>.size else {
            throw .functionTypeMismatch(soname: soname, symbol: name, type: String(describing: F.self))
        }
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: handle), name) else {
            throw .symbolMissing(soname: soname, debianPackage: debianPackage, symbol: name)
        }
        return unsafeBitCast(symbol, to: F.self)
    }

    private static func lastError() -> String {
        guard let text = dlerror() else { return "no reason given" }
        return String(cString: text)
    }
}

/// Why a library could not be used. `code` is stable snake_case; the layers above carry it in their
/// own error (`NFCError.libraryUnavailable`, `MQTTClientError.libraryUnavailable`).
package enum DynamicLibraryError: Error, Sendable, Hashable {
    /// dlopen(3) failed: the library is not installed, or not loadable (`library_unavailable`).
    case libraryUnavailable(soname: String, debianPackage: String, reason: String)
    /// The library lacks a function this program calls: a version older than the package needs
    /// (`library_unavailable`, as the cure is the same: install the right package).
    case symbolMissing(soname: String, debianPackage: String, symbol: String)
    /// A function was asked for as a type that is not a C function pointer (`function_type_mismatch`):
    /// a programming error in nfcbridge, not the installed library's fault; nothing was bound.
    case functionTypeMismatch(soname: String, symbol: String, type: String)

    /// The stable machine-readable code.
    package var code: String {
        switch self {
        case .libraryUnavailable, .symbolMissing: "library_unavailable"
        case .functionTypeMismatch: "function_type_mismatch"
        }
    }

    /// What failed, and what to do about it.
    package var message: String {
        switch self {
        case let .libraryUnavailable(soname, debianPackage, reason):
            "\(soname) could not be loaded (\(reason)): install the Debian package \(debianPackage)"
        case let .symbolMissing(soname, debianPackage, symbol):
            "\(soname) has no \(symbol): install the Debian package \(debianPackage) in the version nfcbridge depends on"
        case let .functionTypeMismatch(soname, symbol, type):
            "nfcbridge asked for \(symbol) of \(soname) as \(type), which is not a C function pointer: "
                + "a bug in nfcbridge, not in the installed library; report it"
        }
    }
}
