import Foundation

/// Shared helpers for the test targets: where the built products are, and running them.
/// (A library target, because Swift test targets cannot share code with each other.)
public enum Binaries {
    /// The package root (the folder holding Package.swift), found from this source file.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The path of a built executable product (`nfcbridge`, `nfcbridge-sim`), next to the test bundle.
    public static func path(_ product: String) -> String {
        // .build/<triple>/debug/<product>: the test bundle lives in the same folder.
        let bundleDir = Bundle.main.bundleURL.deletingLastPathComponent()
        for dir in [bundleDir, bundleDir.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")] {
            let candidate = dir.appendingPathComponent(product).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug").appendingPathComponent(product).path
    }
}

/// The result of running a program to completion.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data

    /// Standard output as UTF-8 text.
    public var out: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    public var err: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs `executable` with `arguments`, feeds `input` on stdin, waits for it to exit and returns
/// what it printed. The process never outlives the call: it is a ``ChildProcess`` (clean signal
/// state, killed when the test runner exits), and one still running after `timeout` is terminated
/// and reported as an error instead of holding up the run.
public func runProcess(
    _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil,
    timeout: Duration = .seconds(120)
) throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment ?? [:], input: input)
    guard let status = child.waitForExit(timeout: timeout) else {
        child.terminate()
        throw ChildProcessError("\(executable) \(arguments.joined(separator: " ")) did not exit within \(timeout): \(child.errorOutput)")
    }
    return ProcessResult(status: status, stdout: child.outputData, stderr: child.errorOutputData)
}
