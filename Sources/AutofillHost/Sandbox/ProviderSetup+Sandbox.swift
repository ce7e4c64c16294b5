internal import FoundationEssentials
internal import Glibc

// PLACEHOLDER (the lead's stub until the policy builder lands): system folders, the bundle, the
// provider's private folders, a minimal environment. No declared grants yet.
extension ProviderSetup {
    public func sandboxPolicy(for manifest: PluginManifest) throws(AutofillError) -> SandboxPolicy {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? "/"
        let data = (environment["XDG_DATA_HOME"] ?? "\(home)/.local/share") + "/autofill/providers/\(manifest.identifier)"
        let runtime = environment["XDG_RUNTIME_DIR"].map { "\($0)/autofill/providers/\(manifest.identifier)" }
        for folder in [data, runtime].compactMap({ $0 }) {
            var path = ""
            for component in folder.split(separator: "/") {
                path += "/\(component)"
                mkdir(path, 0o700)
            }
        }
        var rules: [SandboxPolicy.Rule] = ["/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache"].map {
            .init(path: $0, access: [.read, .execute], reason: "the system")
        }
        rules.append(.init(path: "/opt/swift/usr/lib/swift/linux", access: [.read], reason: "the Swift runtime"))
        rules.append(.init(path: manifest.bundlePath, access: [.read], reason: "its bundle"))
        for device in ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"] {
            rules.append(.init(path: device, access: [.read, .write], reason: "devices"))
        }
        rules.append(.init(path: data, access: [.read, .write], reason: "its data folder"))
        if let runtime { rules.append(.init(path: runtime, access: [.read, .write], reason: "its runtime folder")) }
        for value in catalog.file.settings(for: manifest.identifier).values where value.hasPrefix("/") {
            let folder = String(value[..<(value.lastIndex(of: "/") ?? value.endIndex)])
            rules.append(.init(path: folder.isEmpty ? value : folder, access: [.read, .write], reason: "a setting (stub)"))
        }
        var env: [String: String] = ["HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no", "TMPDIR": runtime ?? data]
        for key in ["XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "LANG"] { env[key] = environment[key] }
        return SandboxPolicy(rules: rules, environment: env, dataFolder: data, runtimeFolder: runtime)
    }
}
