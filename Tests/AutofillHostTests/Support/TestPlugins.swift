import AutofillCore
@_exported import AutofillTestSupport
@testable import AutofillHost
import AutofillStore
import Foundation
import Logging
import Synchronization

/// Paths of this repository, found from this file's location.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Support, AutofillHostTests, Tests, repo
        return url.path
    }()
    static var abiInclude: String { "\(root)/Sources/CAutofillProvider/include" }
    static var builtBundles: String { "\(root)/.build/plugins" }
}


/// Builds plugin bundles for tests: copies of the real samples and compiled C fixtures.
enum TestPlugins {
    /// The Info.plist of a valid provider, as a dictionary tests can break.
    static func plist(
        id: String, name: String = "Fixture", executable: String = "libFixture.so",
        entry: String = "fixture_provider_entry", capabilities: [String: Bool] = ["ProvidesPasswords": true]
    ) -> [String: Any] {
        FixturePlugin.plist(id: id, name: name, executable: executable, entry: entry, capabilities: capabilities)
    }

    /// Writes `plist` as XML (or binary) to `path`.
    static func write(_ plist: [String: Any], to path: String, binary: Bool = false) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: binary ? .binary : .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A bundle `<folder>/<name>.afprovider` holding `plist` and, if `defines` is given, the C fixture
    /// compiled with those `-D` switches.
    @discardableResult
    static func fixture(
        in folder: String, name: String = "Fixture", plist: [String: Any], defines: [String]? = [], binary: Bool = false
    ) throws -> String {
        let bundle = "\(folder)/\(name).afprovider"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try write(plist, to: "\(bundle)/Info.plist", binary: binary)
        if let defines {
            let library = "\(bundle)/\(plist["CFBundleExecutable"] as? String ?? "libFixture.so")"
            try compile(defines: defines, output: library)
        }
        return bundle
    }

    /// Compiles the C fixture the way a third party builds a plugin.
    static func compile(defines: [String], output: String) throws {
        try FixturePlugin.compile(defines: defines, output: output)
    }

    /// A fresh copy of a built sample bundle (e.g. "VaultProvider"): a new file, so a new load in this process.
    /// The real sandbox policy of the provider `id` in the bundles of `bundleFolder`: a configuration
    /// (under `folder`) enabling it with `settings`, read as autofill reads it for a user whose home is `home`.
    static func sandboxPolicy(
        for id: String, bundleFolder: String, settings: [String: String], home: String, folder: String
    ) throws -> SandboxPolicy {
        try FileManager.default.createDirectory(atPath: "\(home)/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = "\(folder)/conf/config.plist"
        try FileManager.default.createDirectory(atPath: "\(folder)/conf", withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: [
            "PluginSearchPaths": [bundleFolder], "EnabledProviders": [id],
            "ProviderSettings": [id: settings], "IdentityStoreDirectory": "\(folder)/stores",
        ] as [String: Any], format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let file = try ConfigurationFile.read(path: config, source: .option, writePath: config, home: home)
        let setup = ProviderSetup(catalog: ProviderCatalog(file: file), stores: IdentityStoreDirectory(path: "\(folder)/stores"),
                                  records: HostRecords(path: "\(home)/.local/state/autofill"), logger: Logger(label: "test"))
        let context = SandboxContext(setup: setup, environment: ["HOME": home, "XDG_RUNTIME_DIR": "\(home)/run", "PATH": "/usr/bin:/bin"])
        return try context.policy(for: try setup.catalog.manifest(for: id))
    }

    static func copyOfSample(_ name: String, into folder: String) throws -> String {
        let source = "\(Repository.builtBundles)/\(name).afprovider"
        guard FileManager.default.fileExists(atPath: source) else {
            throw TestFailure("\(source) is missing: run Scripts/build first (Scripts/test does)")
        }
        let target = "\(folder)/\(name).afprovider"
        try FileManager.default.copyItem(atPath: source, toPath: target)
        return target
    }

    /// Runs a program and returns its exit status and combined output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> (Int32, String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Log lines captured for assertions.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }

    var logger: Logger {
        Logger(label: "test") { _ in CapturingHandler(capture: self) }
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.append("\(event.level): \(event.message)")
    }
}

/// A UI double answering requests from a list and recording what was asked, for tests that check
/// the questions themselves (the real UI script, ScriptedUserInterface, does not record them).
final class ScriptedUI: ProviderUserInterface {
    private let state: Mutex<(answers: [Result<UserInterfaceAnswer, UserInterfaceError>], asked: [UserInterfaceRequest])>

    init(_ answers: [Result<UserInterfaceAnswer, UserInterfaceError>]) {
        state = Mutex((answers, []))
    }

    var asked: [UserInterfaceRequest] { state.withLock { $0.asked } }

    /// Replaces the answers still unused (for a provider that keeps serving the same UI, request by request).
    func script(_ answers: [Result<UserInterfaceAnswer, UserInterfaceError>]) {
        state.withLock { $0.answers = answers }
    }

    func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        let next = state.withLock { state -> Result<UserInterfaceAnswer, UserInterfaceError> in
            state.asked.append(request)
            return state.answers.isEmpty ? .failure(.unavailable("script exhausted")) : state.answers.removeFirst()
        }
        return try next.get()
    }
}

/// Loading a provider either way the host can run it, for the conformance tests that run in both
/// modes (`@Test(arguments: Isolated.modes)`).
enum Isolated {
    /// The modes the conformance tests run in: in process, and in a helper process.
    static let modes: [ProviderIsolation] = [.inProcess, .helperProcess]

    /// Loads the plugin at `bundle` in `isolation`: `PluginLoader` in this process, or a helper process.
    static func load(
        _ bundle: String, services: ProviderServices, isolation: ProviderIsolation, options: HelperOptions = HelperOptions(),
        onFault: (@Sendable (PluginManifest, ProviderFault) -> Void)? = nil
    ) throws -> any ProviderConnection {
        switch isolation {
        case .inProcess: return try PluginLoader.load(bundle: bundle, services: services)
        case .unsandboxed: return try HelperConnection.launch(bundle: bundle, services: services, options: options, onFault: onFault)
        case .helperProcess:
            // Sandboxed, as users run providers: the conformance tests prove the samples and fixtures
            // work inside it.
            var options = options
            if options.sandbox == nil { options.sandbox = try TestSandbox.policy(bundle: bundle, settings: services.settings) }
            return try HelperConnection.launch(bundle: bundle, services: services, options: options, onFault: onFault)
        }
    }

    /// The host-side session of either kind of connection.
    static func session(of connection: any ProviderConnection) -> ProviderSession {
        if let helper = connection as? HelperConnection { return helper.session }
        return (connection as! InProcessConnection).session
    }
}

/// A sandbox for tests that launch helpers without a configuration: what the host grants every
/// provider (the system folders, the Swift runtime, its bundle, a private data folder) plus the
/// folder of each setting that names an absolute path (the samples' files: read and change).
enum TestSandbox {
    static func policy(bundle: String, settings: [String: String]) throws -> SandboxPolicy {
        let data = "\(NSTemporaryDirectory())autofill-test-sandbox-\(getpid())/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var rules: [SandboxPolicy.Rule] = ["/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache"].map {
            .init(path: $0, access: [.read, .execute], reason: "the system")
        }
        if let runtime = SandboxSupport.swiftRuntimeFolder { rules.append(.init(path: runtime, access: [.read], reason: "the Swift runtime")) }
        rules.append(.init(path: bundle, access: [.read], reason: "its bundle"))
        for device in ["/dev/null", "/dev/zero", "/dev/urandom"] { rules.append(.init(path: device, access: [.read, .write], reason: "devices")) }
        rules.append(.init(path: data, access: [.read, .write], reason: "its data folder"))
        for value in settings.values where value.hasPrefix("/") {
            let folder = (value as NSString).deletingLastPathComponent
            rules.append(.init(path: folder, access: [.read, .write], reason: "a setting's folder"))
        }
        let environment = ProcessInfo.processInfo.environment
        var kept = ["PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "HOME": data, "TMPDIR": data]
        for key in ["XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"] { kept[key] = environment[key] }
        if let runtime = environment["XDG_RUNTIME_DIR"] {
            // The Vault keeps its sessions in its private runtime folder (made first, as the host does:
            // a rule for a missing path grants nothing).
            try FileManager.default.createDirectory(atPath: "\(runtime)/autofill/providers", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            rules.append(.init(path: "\(runtime)/autofill/providers", access: [.read, .write], reason: "runtime folders"))
        }
        return SandboxPolicy(rules: rules, environment: kept, dataFolder: data)
    }
}

/// Waits (up to 120 s, for a loaded machine) until `condition` holds; the caller then checks it. For
/// what a helper process reports asynchronously (log lines, its end).
func eventually(_ condition: () -> Bool) async throws {
    // Generous: it returns as soon as the condition holds, and CI's two cores are shared by every suite.
    let deadline = ContinuousClock.now + .seconds(120)
    while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
}
