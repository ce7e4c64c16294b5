import Foundation

/// The C test provider (`Tests/AutofillHostTests/Fixtures/fixture_provider.c`), compiled the way a
/// third party builds a plugin, for every test target: host tests load it, CLI tests run the real
/// `autofill` against it.
public enum FixturePlugin {
    /// The repository's root, found from this file's location.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // AutofillTestSupport, Tests, repo
        return url.path
    }()

    /// The fixture's C source.
    public static var source: String { "\(repositoryRoot)/Tests/AutofillHostTests/Fixtures/fixture_provider.c" }
    /// The folder holding `autofill_provider.h`.
    public static var abiInclude: String { "\(repositoryRoot)/Sources/CAutofillProvider/include" }

    /// The Info.plist of a valid fixture provider, as a dictionary tests can break.
    public static func plist(
        id: String, name: String = "Fixture", executable: String = "libFixture.so",
        entry: String = "fixture_provider_entry", capabilities: [String: Bool] = ["ProvidesPasswords": true]
    ) -> [String: Any] {
        [
            "CFBundleIdentifier": id, "CFBundleDisplayName": name, "CFBundleExecutable": executable,
            "AFProviderABIVersion": 1, "AFProviderEntrySymbol": entry,
            "NSExtension": [
                "NSExtensionPointIdentifier": "com.apple.authentication-services-credential-provider-ui",
                "NSExtensionAttributes": ["ASCredentialProviderExtensionCapabilities": capabilities],
            ],
        ]
    }

    /// Compiles the fixture with these `-D` switches into `output`.
    public static func compile(defines: [String], output: String) throws {
        let arguments = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-pthread",
                         "-I", abiInclude] + defines.map { "-D\($0)" } + [source, "-o", output]
        let result = try ChildProcess.run("/usr/bin/cc", arguments)
        guard result.status == 0 else { throw ChildProcessError("cc failed: \(result.stdout)\(result.stderr)") }
    }

    /// A bundle `<folder>/<name>.afprovider` holding `plist` (XML) and the fixture compiled with `defines`.
    @discardableResult
    public static func bundle(in folder: String, name: String = "Fixture", plist: [String: Any], defines: [String] = []) throws -> String {
        let bundle = "\(folder)/\(name).afprovider"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        try compile(defines: defines, output: "\(bundle)/\(plist["CFBundleExecutable"] as? String ?? "libFixture.so")")
        return bundle
    }
}
