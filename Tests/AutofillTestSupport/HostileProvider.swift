import Foundation

/// The hostile C fixture (`Tests/AutofillHostTests/Fixtures/hostile_text_provider.c`, whose comment
/// lists its behaviours) built into plugin bundles: a provider that tries to forge the screen with
/// its text and to break the ABI's limits. For the host's tests and the CLI's.
public enum HostileProvider {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // HostileProvider.swift, AutofillTestSupport, Tests
        return url.path
    }()

    /// The fixture's C source.
    public static var source: String { "\(root)/Tests/AutofillHostTests/Fixtures/hostile_text_provider.c" }

    /// The Info.plist of the fixture: provider `id` named `name`, providing passwords.
    public static func plist(id: String, name: String) -> [String: Any] {
        [
            "CFBundleIdentifier": id, "CFBundleDisplayName": name, "CFBundleExecutable": "libHostile.so",
            "AFProviderABIVersion": 1, "AFProviderEntrySymbol": "fixture_provider_entry",
            "NSExtension": [
                "NSExtensionPointIdentifier": "com.apple.authentication-services-credential-provider-ui",
                "NSExtensionAttributes": ["ASCredentialProviderExtensionCapabilities": ["ProvidesPasswords": true]],
            ],
        ]
    }

    /// A bundle `<folder>/<bundleName>.afprovider` with `plist` and the fixture compiled as a third
    /// party would (`cc -shared` against the header alone); returns its path.
    @discardableResult
    public static func bundle(in folder: String, bundleName: String, plist: [String: Any]) throws -> String {
        let bundle = "\(folder)/\(bundleName).afprovider"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        let result = try ChildProcess.run("/usr/bin/cc", [
            "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden",
            "-I", "\(root)/Sources/CAutofillProvider/include", source, "-o", "\(bundle)/libHostile.so",
        ])
        guard result.status == 0 else { throw CompileFailure(output: result.stderr) }
        return bundle
    }

    struct CompileFailure: Error, CustomStringConvertible {
        let output: String
        var description: String { "cc failed: \(output)" }
    }
}
