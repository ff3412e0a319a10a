import CMosquitto

/// Facts about the libmosquitto library this process is linked against.
public enum MosquittoLibrary {
    /// (major, minor, revision) from `mosquitto_lib_version`.
    public static var version: (major: Int, minor: Int, revision: Int) {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return (Int(major), Int(minor), Int(revision))
    }

    /// `mosquitto_lib_init` runs once per process (it seeds OpenSSL and the random source); Swift
    /// initialises a static constant exactly once, thread-safely, on first use.
    private static let initialisation: Int32 = mosquitto_lib_init()

    /// Makes sure `mosquitto_lib_init` has run. Called before every `mosquitto_new`.
    static func initialise() {
        _ = initialisation
    }
}
