import DynamicLibrary
import NFCCore
import Testing

/// libcrypto is opened with dlopen when a command first needs it (issue 25). These tests cover what
/// happens when a library is missing or too old: a clear error with a stable code, thrown to the one
/// operation that needed it (the process goes on), and the real libcrypto still bound.
@Suite struct DynamicLibraryTests {
    private typealias NoArguments = @convention(c) () -> Int32

    @Test func aMissingLibraryIsLibraryUnavailableNamingThePackage() {
        #expect(throws: DynamicLibraryError.self) {
            _ = try DynamicLibrary.open("libnfcbridge-test-missing.so.9", debianPackage: "nfcbridge-test-package")
        }
        do {
            _ = try DynamicLibrary.open("libnfcbridge-test-missing.so.9", debianPackage: "nfcbridge-test-package")
            Issue.record("opened a library that does not exist")
        } catch {
            guard case let .libraryUnavailable(soname, package, reason) = error else {
                Issue.record("expected libraryUnavailable, got \(error)")
                return
            }
            #expect(soname == "libnfcbridge-test-missing.so.9")
            #expect(package == "nfcbridge-test-package")
            #expect(reason.contains("libnfcbridge-test-missing.so.9"))  // dlerror(3)'s text
            #expect(error.code == "library_unavailable")
            #expect(error.message.hasSuffix("install the Debian package nfcbridge-test-package"))
        }
    }

    @Test func aMissingFunctionIsLibraryUnavailableNamingIt() throws {
        let libc = try DynamicLibrary.open("libc.so.6", debianPackage: "libc6")
        #expect(throws: DynamicLibraryError.symbolMissing(
            soname: "libc.so.6", debianPackage: "libc6", symbol: "nfcbridge_no_such_function")) {
            _ = try libc.function("nfcbridge_no_such_function", as: NoArguments.self)
        }
        let error = DynamicLibraryError.symbolMissing(soname: "libc.so.6", debianPackage: "libc6", symbol: "f")
        #expect(error.code == "library_unavailable")
        #expect(error.message.contains("has no f"))
    }

    /// A type that is not a C function pointer is a programming error, named as such, not a missing
    /// symbol (getpid exists).
    @Test func aFunctionAskedForAsTheWrongTypeIsAFunctionTypeMismatch() throws {
        let libc = try DynamicLibrary.open("libc.so.6", debianPackage: "libc6")
        let error = #expect(throws: DynamicLibraryError.self) { _ = try libc.function("getpid", as: (Int, Int).self) }
        #expect(error == .functionTypeMismatch(soname: "libc.so.6", symbol: "getpid", type: "(Int, Int)"))
        #expect(error?.code == "function_type_mismatch")
        #expect(error?.message.contains("a bug in nfcbridge") == true)
    }

    @Test func aFunctionIsCalledThroughItsHeaderType() throws {
        let libc = try DynamicLibrary.open("libc.so.6", debianPackage: "libc6")
        let getpid = try libc.function("getpid", as: NoArguments.self)
        #expect(getpid() > 0)
    }

    /// A library that is not libcrypto (libc) fails at its first missing function; nothing is called.
    @Test func libCryptoFromTheWrongLibraryFailsCleanly() throws {
        let libc = try DynamicLibrary.open("libc.so.6", debianPackage: "libc6")
        #expect(throws: DynamicLibraryError.symbolMissing(
            soname: "libc.so.6", debianPackage: "libc6", symbol: "ERR_clear_error")) {
            _ = try LibCrypto(libc)
        }
    }

    @Test func libCryptoLoadsFromDebiansLibssl3() throws {
        let lib = try LibCrypto.load()
        #expect(lib.EVP_aes_128_cbc() != nil)
        #expect(LibCrypto.soname == "libcrypto.so.3")
    }

    /// The error an operation gets when libcrypto cannot be loaded: its own code, the loader's message.
    @Test func nfcErrorCarriesTheLoadersMessage() {
        let cause = DynamicLibraryError.libraryUnavailable(soname: "libcrypto.so.3", debianPackage: "libssl3", reason: "gone")
        let error = NFCError.libraryUnavailable(cause.message)
        #expect(error.code == "library_unavailable")
        #expect(error.message == "libcrypto.so.3 could not be loaded (gone): install the Debian package libssl3")
    }
}
