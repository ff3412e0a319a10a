import CMosquitto

/// Facts about the libmosquitto library this process is linked against.
public enum MosquittoLibrary {
    /// (major, minor, revision) from `mosquitto_lib_version`.
    public static var version: (major: Int, minor: Int, revision: Int) {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return (Int(major), Int(minor), Int(revision))
    }
}
