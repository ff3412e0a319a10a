/// The last part of a dump file's path, which NFCCore's import reads to tell a Proxmark3 key file
/// (`hf-mf-<UID>-key.bin`); standard input (`-`) has none.
func dumpFileName(_ path: String) -> String? {
    path == "-" ? nil : path.split(separator: "/").last.map(String.init)
}
