// swift-tools-version:6.0
// NFCBridge — a headless NFC reader agent for Linux boards.
// Module layout: see docs/architecture.md. No outside SwiftPM dependency: C libraries come from
// Debian through the system-library targets below (installed by `make deps`).
import PackageDescription

// Release only: our modules put each function in its own section, and lld lays the functions the
// agent runs from start-up through taps (`bench/linkorder.py`, callgrind) out first in `.text`, so
// the code it keeps resident fills fewer pages: the kernel maps the file's pages around each fault
// (64 kB, more with large page-cache folios), and scattered hot functions drag cold neighbours in
// (bench/README.md, issue 25, code locality). A name the order file has and the binary lacks is skipped.
let releaseFunctionSections: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))]
let releaseLinkOrder = ["-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/nfcbridge.order",
                        "-Xlinker", "--no-warn-symbol-ordering"]
// Release only: the static Swift runtime's link arguments ask for `-lstdc++`; this search folder holds
// only `libstdc++.a` (a link to GCC 12's, package libstdc++-12-dev, Debian 12), found before the
// toolchain's `libstdc++.so`, so the runtime's few C++ library functions are linked in and
// libstdc++.so.6 is not loaded: its symbol tables and relocations, about 1 MB of the agent's RSS
// (bench/README.md, issue 25). Where the link dangles (another GCC), lld skips it and links
// libstdc++.so as before; `make test-deploy` fails such a package.
let releaseStaticLibstdcxx = ["-L", "\(Context.packageDirectory)/scripts/static-libstdc++"]

let package = Package(
    name: "NFCBridge",
    products: [
        .executable(name: "nfcbridge", targets: ["nfcbridge"]),
        .executable(name: "nfcbridge-sim", targets: ["nfcbridge-sim"]),
        .library(name: "NFCCore", targets: ["NFCCore"]),
    ],
    targets: [
        // Debian libraries (module maps in Sources/C*/).
        .systemLibrary(name: "CNFC", pkgConfig: "libnfc", providers: [.apt(["libnfc-dev"])]),
        // CMosquitto and CCrypto: headers only. The agent opens libmosquitto.so.1 and libcrypto.so.3 with dlopen
        // when first needed (DynamicLibrary; LibMosquitto, LibCrypto), so a one-shot command does not load them.
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // <sys/timex.h> (adjtimex) from libc: no library is linked.
        .systemLibrary(name: "CTimex"),
        // CMalloc: libc's <malloc.h> (mallopt, M_ARENA_MAX) for POSIXThreads' MallocArenas; nothing linked.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CPCSCLite", pkgConfig: "libpcsclite", providers: [.apt(["libpcsclite-dev"])]),

        // libyaml's event parser as a node tree with line numbers (agent configuration, scenarios).
        .target(name: "YAMLDocument", dependencies: ["CYAML"], swiftSettings: releaseFunctionSections),
        // dlopen(3) of a Debian library when first needed, with typed functions (libcrypto, libmosquitto).
        .target(name: "DynamicLibrary", swiftSettings: releaseFunctionSections),
        // The domain: pure Swift, knows nothing of libnfc, MQTT or files.
        .target(name: "NFCCore", dependencies: ["CCrypto", "DynamicLibrary"], swiftSettings: releaseFunctionSections),
        // Virtual tags and the PN532 emulator on a pty.
        // CCrypto: the virtual NTAG 424 DNA's SDM and the virtual DESFire's authentication and secure
        // messaging, each the simulator's own steps on libcrypto's AES, never NFCCore's crypto.
        // It links libcrypto itself (CCrypto has headers only).
        .target(name: "PN532Sim", dependencies: ["NFCCore", "YAMLDocument", "CCrypto"], linkerSettings: [.linkedLibrary("crypto")]),
        // pthread mutex + condition and thread start (the libnfc and mosquitto threads, without Foundation).
        .target(name: "POSIXThreads", dependencies: ["CMalloc"], swiftSettings: releaseFunctionSections),
        // The libnfc backend.
        .target(name: "LibNFCReader", dependencies: ["NFCCore", "CNFC", "POSIXThreads"], swiftSettings: releaseFunctionSections),
        // The PC/SC backend (pcsc-lite's pcscd: ACR122U/ACR1252U/ACR1552U…, ISO 15693).
        .target(name: "PCSCReader", dependencies: ["NFCCore", "CPCSCLite", "POSIXThreads"], swiftSettings: releaseFunctionSections),
        // Async wrapper over libmosquitto.
        .target(name: "MQTTClient", dependencies: ["CMosquitto", "POSIXThreads", "DynamicLibrary"], swiftSettings: releaseFunctionSections),
        // The agent.
        .target(name: "NFCBridge", dependencies: ["NFCCore", "MQTTClient", "POSIXThreads", "YAMLDocument", "CTimex"], swiftSettings: releaseFunctionSections),

        // The release agent is linked by lld with packed relative relocations (DT_RELR, glibc 2.36 =
        // Debian 12) and without exporting its symbols (the static Swift runtime's link arguments add
        // -export-dynamic): 47,600 relocations read at every start (.rela.dyn, 1.1 MB) become 10 kB, the
        // dynamic symbol table 880 kB becomes 19 kB. The agent's RSS 1.6 MB less (bench/README.md,
        // issue 25 item 3).
        .executableTarget(name: "nfcbridge", dependencies: ["NFCBridge", "NFCCore", "LibNFCReader", "PCSCReader", "MQTTClient", "POSIXThreads"],
                          swiftSettings: releaseFunctionSections,
                          linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                                         "-Xlinker", "--no-export-dynamic"] + releaseLinkOrder + releaseStaticLibstdcxx, .when(configuration: .release))]),
        .executableTarget(name: "nfcbridge-sim", dependencies: ["PN532Sim"]),

        // Helpers shared by the test targets (built products, child processes, brokers, simulators).
        .target(name: "TestSupport", path: "Sources/TestSupport"),

        .testTarget(name: "NFCCoreTests", dependencies: ["NFCCore", "PN532Sim", "TestSupport", "DynamicLibrary"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PN532SimTests", dependencies: ["PN532Sim", "NFCCore", "TestSupport"]),
        .testTarget(name: "MQTTClientTests", dependencies: ["MQTTClient", "TestSupport", "DynamicLibrary"]),
        .testTarget(name: "NFCBridgeTests", dependencies: ["NFCBridge", "YAMLDocument", "NFCCore", "PN532Sim", "MQTTClient", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["NFCCore", "PN532Sim", "LibNFCReader", "PCSCReader", "NFCBridge", "MQTTClient", "TestSupport"]),
    ]
)

// libFuzzer harnesses (fuzz/README.md, `make fuzz`): declared only when NFCBRIDGE_FUZZ is set, and built
// in their own scratch path with `--sanitize fuzzer --sanitize address`, so `swift build` and
// `swift test` never see them. Each is one file with `LLVMFuzzerTestOneInput` and no main (libFuzzer's).
// The fuzz package holds only the harnesses and the library modules they import, so one `swift build`
// builds them all, each module once (built one `--product` at a time, later products' build plans
// compiled NFCCore, and NFCBridge with the modules under it, a second time: 84 s of 291 s).
if Context.environment["NFCBRIDGE_FUZZ"] != nil {
    let notFuzzed: Set<String> = ["nfcbridge", "nfcbridge-sim", "TestSupport", "LibNFCReader", "PCSCReader"]
    package.products = []
    package.targets.removeAll { notFuzzed.contains($0.name) || $0.type == .test }
    let harnesses: [(name: String, dependency: Target.Dependency)] = [
        ("ndef", "NFCCore"), ("type2tlv", "NFCCore"), ("import-flipper", "NFCCore"), ("import-pm3", "NFCCore"),
        ("import-mfd", "NFCCore"), ("import-json", "NFCCore"), ("import-auto", "NFCCore"), ("export", "NFCCore"),
        ("mqtt-request", "NFCBridge"), ("config", "NFCBridge"), ("scenario", "PN532Sim"), ("pn532-frame", "PN532Sim"),
        ("import-pm3json", "NFCCore"), ("import-eml", "NFCCore"), ("signed-request", "NFCBridge"), ("keys-file", "NFCBridge"),
    ]
    for harness in harnesses {
        package.targets.append(.executableTarget(
            name: "fuzz-" + harness.name, dependencies: [harness.dependency], path: "fuzz/harnesses/" + harness.name,
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}
