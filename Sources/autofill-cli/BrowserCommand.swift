import ArgumentParser
import AutofillHost
import AutofillWire
import FoundationEssentials

/// `autofill browser install|uninstall`: the native-messaging host manifests that let the browsers
/// start `autofill-browser-host` for autofill's extension, and for it alone (docs/BROWSER.md).
struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Connect autofill's browser extension: write or remove the browsers' native-messaging host manifests.",
        discussion: """
            The extension (PREFIX/share/autofill/browser, loaded unpacked) asks autofill-browser-host, which the \
            browser starts by the manifest these commands write; the host is a client of the agent like \
            autofill itself (docs/BROWSER.md).

            Examples:
              autofill browser install
              autofill browser uninstall --browser chrome
            """,
        subcommands: [BrowserInstallCommand.self, BrowserUninstallCommand.self])

    /// A browser whose host manifest autofill writes.
    enum Browser: String, ExpressibleByArgument, CaseIterable {
        case chromium, chrome, firefox

        /// The folder the browser reads a user's host manifests from.
        func folder(environment: [String: String]) -> String {
            let home = environment["HOME"] ?? ""
            let configuration = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "\(home)/.config"
            switch self {
            case .chromium: return "\(configuration)/chromium/NativeMessagingHosts"
            case .chrome: return "\(configuration)/google-chrome/NativeMessagingHosts"
            case .firefox: return "\(home)/.mozilla/native-messaging-hosts"
            }
        }

        func manifestPath(environment: [String: String]) -> String {
            "\(folder(environment: environment))/\(BrowserExtension.hostName).json"
        }

        /// The manifest: the host's absolute path, allowing exactly the project's extension.
        func manifest(host: String) -> HostManifest {
            let chromium = self != .firefox
            return HostManifest(
                name: BrowserExtension.hostName, description: "autofill: passwords and one-time codes from your providers",
                path: host, type: "stdio",
                allowed_origins: chromium ? [BrowserExtension.chromiumOrigin] : nil,
                allowed_extensions: chromium ? nil : [BrowserExtension.firefoxID])
        }
    }

    /// A native-messaging host manifest, as the browsers read it (their field names).
    struct HostManifest: Encodable {
        let name: String
        let description: String
        let path: String
        let type: String
        let allowed_origins: [String]?
        let allowed_extensions: [String]?
    }
}

/// `autofill browser install`.
struct BrowserInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Write the native-messaging host manifest for each browser (or one), allowing only autofill's extension.",
        discussion: """
            The manifest names autofill-browser-host beside this autofill by its absolute path, and allows \
            exactly autofill's extension (Chromium and Chrome: \(BrowserExtension.chromiumOrigin); Firefox: \
            \(BrowserExtension.firefoxID)). Load the extension from PREFIX/share/autofill/browser (docs/BROWSER.md).

            Examples:
              autofill browser install
              autofill browser install --browser chromium
            """)

    @Option(help: "Only this browser (default: all three).") var browser: BrowserCommand.Browser?

    func run() throws {
        try reportingErrors {
            let environment = ClientContext.current.environment
            let host = ClientProcess.folder() + "/" + BrowserExtension.hostExecutable
            guard FileManager.default.isExecutableFile(atPath: host) else {
                throw AutofillError(.notFound, "\(host) is missing; reinstall autofill (Scripts/install puts \(BrowserExtension.hostExecutable) beside autofill)")
            }
            for browser in browser.map({ [$0] }) ?? BrowserCommand.Browser.allCases {
                let path = browser.manifestPath(environment: environment)
                do {
                    try FileManager.default.createDirectory(atPath: browser.folder(environment: environment), withIntermediateDirectories: true)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    let data = try encoder.encode(browser.manifest(host: host))
                    try data.write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    throw AutofillError(.io, "cannot write \(path): \(error)")
                }
                print("\(browser.rawValue): \(path)")
            }
        }
    }
}

/// `autofill browser uninstall`.
struct BrowserUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove the native-messaging host manifests `autofill browser install` wrote.",
        discussion: """
            Examples:
              autofill browser uninstall
              autofill browser uninstall --browser firefox
            """)

    @Option(help: "Only this browser (default: all three).") var browser: BrowserCommand.Browser?

    func run() throws {
        try reportingErrors {
            let environment = ClientContext.current.environment
            for browser in browser.map({ [$0] }) ?? BrowserCommand.Browser.allCases {
                let path = browser.manifestPath(environment: environment)
                guard FileManager.default.fileExists(atPath: path) else { continue }
                do {
                    try FileManager.default.removeItem(atPath: path)
                } catch {
                    throw AutofillError(.io, "cannot remove \(path): \(error)")
                }
                print("\(browser.rawValue): removed \(path)")
            }
        }
    }
}
