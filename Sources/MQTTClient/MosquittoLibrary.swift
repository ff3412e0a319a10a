import DynamicLibrary

/// The libmosquitto this process uses, opened (dlopen) and initialised when the first client is made.
public enum MosquittoLibrary {
    /// (major, minor, revision) from `mosquitto_lib_version`. Throws
    /// ``MQTTClientError/libraryUnavailable(_:)`` when libmosquitto cannot be loaded.
    public static var version: (major: Int, minor: Int, revision: Int) {
        get throws(MQTTClientError) {
            let lib = try initialise()
            var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
            _ = lib.mosquitto_lib_version(&major, &minor, &revision)
            return (Int(major), Int(minor), Int(revision))
        }
    }

    /// The library opened and `mosquitto_lib_init` run, once per process (it seeds OpenSSL and the
    /// random source); Swift initialises a static constant exactly once, thread-safely, on first use.
    /// A library that cannot be loaded stays a failure: every client made later gets the same error.
    private static let initialisation = load(LibMosquitto.soname)

    /// Opens `soname` as libmosquitto and runs `mosquitto_lib_init`. Not cached: ``initialise()``
    /// keeps the process's one result; a test calls this to see a library that cannot be loaded.
    static func load(_ soname: String) -> Result<LibMosquitto, MQTTClientError> {
        do throws(DynamicLibraryError) {
            let lib = try LibMosquitto(try DynamicLibrary.open(soname, debianPackage: "libmosquitto1"))
            _ = lib.mosquitto_lib_init()
            return .success(lib)
        } catch {
            return .failure(.libraryUnavailable(error.message))
        }
    }

    /// libmosquitto's functions, `mosquitto_lib_init` having run. Called before every `mosquitto_new`.
    /// Throws ``MQTTClientError/libraryUnavailable(_:)`` when libmosquitto cannot be loaded.
    static func initialise() throws(MQTTClientError) -> LibMosquitto {
        try initialisation.get()
    }

    /// The functions when the library was loaded already (an error's text after a libmosquitto call).
    static var loaded: LibMosquitto? { try? initialisation.get() }
}
