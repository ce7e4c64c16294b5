import AutofillTestSupport
import Foundation

/// Runs the built `autofill` binary, as a user would.
enum CLI {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // autofillCLITests, Tests, repo
        return url.path
    }()

    static var binary: String { "\(root)/.build/debug/autofill" }
    static var demoConfig: String { "\(root)/Config/config.plist" }
    static var builtBundles: String { "\(root)/.build/plugins" }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `autofill arguments` with a clean environment whose HOME and XDG folders are `home`.
    static func run(_ arguments: [String], home: String, environment extra: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = [
            "HOME": home, "XDG_CONFIG_HOME": "\(home)/.config", "XDG_DATA_HOME": "\(home)/.local/share",
            "XDG_RUNTIME_DIR": "\(home)/run",
            "PATH": "/usr/bin:/bin", "COLUMNS": "100",
        ].merging(extra) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes are drained at once: a process that fills one while the other is read to its end
        // would otherwise wait forever (a provider helper logs what its plugin prints to stderr).
        let errors = Thread.detachedRead(err.fileHandleForReading)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A temporary home folder (with a private XDG_RUNTIME_DIR), removed afterwards.
final class TemporaryHome: Sendable {
    private let folder: TemporaryFolder
    var path: String { folder.path }

    init() throws {
        folder = try TemporaryFolder("cli")
        try FileManager.default.createDirectory(atPath: "\(folder.path)/run", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// Writes `text` to `name` in the home folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        try folder.file(name, text)
    }

    /// A copy of a built sample bundle with its provider id (and optionally other keys) changed.
    func sample(_ name: String, as id: String, folder: String = "plugins", edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let target = "\(path)/\(folder)/\(id).afprovider"
        try FileManager.default.createDirectory(atPath: "\(path)/\(folder)", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.builtBundles)/\(name).afprovider", toPath: target)
        let plistPath = "\(target)/Info.plist"
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: plistPath)), format: nil) as! [String: Any]
        plist["CFBundleIdentifier"] = id
        edit(&plist)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: plistPath))
        return target
    }

    /// A configuration file searching `plugins/` with these providers enabled.
    func config(enabled: [String], settings: [String: [String: String]] = [:]) throws -> String {
        let path = "\(self.path)/config.plist"
        let plist: [String: Any] = ["PluginSearchPaths": ["plugins"], "EnabledProviders": enabled, "ProviderSettings": settings]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension Thread {
    /// Reads `handle` to its end on a thread of its own; `wait()` returns the bytes.
    static func detachedRead(_ handle: FileHandle) -> PendingRead {
        let pending = PendingRead()
        Thread.detachNewThread { pending.finish(handle.readDataToEndOfFile()) }
        return pending
    }
}

/// The bytes of a read running on another thread.
final class PendingRead: @unchecked Sendable {
    // @unchecked: `data` is written once, before `done` is signalled, and read only after waiting for it.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    func finish(_ data: Data) {
        self.data = data
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
