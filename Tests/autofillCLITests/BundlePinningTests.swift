import AutofillTestSupport
import Foundation
import Testing

/// The whole bundle is pinned (issue M): every file of an `.afprovider` is in the trust record, so a
/// library the plugin links from its bundle (`DT_NEEDED` through `$ORIGIN`) swapped after approval, or
/// a file added, is refused (exit 77) naming it; the host loads each library through the descriptor
/// it hashed.
struct BundlePinningTests {
    let home: TemporaryHome
    let bundle: String
    static let id = "org.t.dep"

    /// The C fixture linked against `libdep.so` beside it (`-Wl,-rpath,$ORIGIN`), whose
    /// `fixture_dependency()` names the provider's one login's service (`original.test`).
    init() throws {
        home = try TemporaryHome()
        // The agent holds the user's policy; these requests ask for none, so the user's does too.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        bundle = "\(home.path)/plugins/Dep.afprovider"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try dependency(named: "original", to: "\(bundle)/libdep.so")
        try PropertyListSerialization.data(fromPropertyList: FixturePlugin.plist(id: Self.id, name: "Dep"), format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        let compiled = try ChildProcess.run("/usr/bin/cc", [
            "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-pthread", "-I", FixturePlugin.abiInclude,
            "-DFIXTURE_DEPENDENCY", FixturePlugin.source, "-o", "\(bundle)/libFixture.so", "-L", bundle, "-ldep", "-Wl,-rpath,$ORIGIN",
        ])
        try #require(compiled.status == 0, "cc: \(compiled.stderr)")
    }

    /// Builds `libdep.so` whose `fixture_dependency()` returns `name`, as `output`.
    func dependency(named name: String, soname: String? = "libdep.so", to output: String) throws {
        let source = try home.file("dep-\(name).c", "const char *fixture_dependency(void) { return \"\(name)\"; }\n")
        let compiled = try ChildProcess.run("/usr/bin/cc", ["-shared", "-fPIC", source, "-o", output] + (soname.map { ["-Wl,-soname,\($0)"] } ?? []))
        try #require(compiled.status == 0, "cc: \(compiled.stderr)")
    }

    func configure(isolation: String) throws -> String {
        let config = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [String](), "UserAuthentication": ["Policy": "none"],
            "ProviderIsolation": ["Providers": [Self.id: isolation]],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let enabled = try CLI.run(["providers", "enable", Self.id, "--config", config], home: home.path)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        return config
    }

    /// Replaces `libdep.so` by a new file (a new inode, as an update or an attacker writes it).
    func swapDependency(named name: String) throws {
        try dependency(named: name, to: "\(bundle)/libdep.so.new")
        #expect(rename("\(bundle)/libdep.so.new", "\(bundle)/libdep.so") == 0)
    }

    @Test(arguments: ["helperProcess", "inProcess"])
    func aSwappedDependencyIsRefusedNamingIt(isolation: String) throws {
        let config = try configure(isolation: isolation)
        // Control: the approved dependency loads, through the descriptor hashed (its name is its code's answer).
        var sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 0, "\(sync.stderr)")
        let suggest = try CLI.run(["suggest", "original.test", "--config", config], home: home.path)
        #expect(suggest.stdout.contains("ok"), "the dependency's code named the login's service: \(suggest.stdout)\(suggest.stderr)")
        _ = try CLI.run(["agent", "stop"], home: home.path)

        try swapDependency(named: "evil")
        sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 77, "\(sync.stderr)")
        #expect(sync.stderr.contains("Dep (\(Self.id)) changed since you enabled it: libdep.so differs"), "\(sync.stderr)")
        #expect(sync.stderr.contains("`autofill providers trust \(Self.id)`"))
        #expect(try CLI.run(["suggest", "evil.test", "--config", config], home: home.path).stdout.contains("No suggestions"))
        _ = try CLI.run(["agent", "stop"], home: home.path)
    }

    @Test func anAddedFileIsRefusedNamingIt() throws {
        let config = try configure(isolation: "helperProcess")
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: "\(bundle)/extra.so"))
        let sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 77, "\(sync.stderr)")
        #expect(sync.stderr.contains("extra.so was added"), "\(sync.stderr)")
        // Control: approving the bundle as it is now lets it run again, and the record lists every file.
        let trusted = try CLI.run(["providers", "trust", Self.id, "--config", config], home: home.path)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stdout.contains("extra.so") && trusted.stdout.contains("libdep.so"), "\(trusted.stdout)")
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
        _ = try CLI.run(["agent", "stop"], home: home.path)
    }

    @Test func aDependencyThatDoesNotNameItselfIsExplained() throws {
        try dependency(named: "original", soname: nil, to: "\(bundle)/libdep.so")
        let validated = try CLI.run(["plugin", "validate", bundle], home: home.path)
        #expect(validated.status == 65, "\(validated.stdout)\(validated.stderr)")
        #expect(validated.stdout.contains("-Wl,-soname,libdep.so"), "\(validated.stdout)")
    }
}
