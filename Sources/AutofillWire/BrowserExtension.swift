/// The project's WebExtension (BrowserExtension/, docs/BROWSER.md) as the native-messaging host and
/// `autofill browser install` know it: its fixed ids and the host's name. The Chromium id follows from
/// the public key pinned in BrowserExtension/manifest.json (`key`); the Firefox id is the manifest's
/// `browser_specific_settings.gecko.id`.
package enum BrowserExtension {
    /// The native-messaging host's name (the manifests' `name`, the file name of each host manifest).
    package static let hostName = "org.autofill.browser"
    /// The host's executable, installed beside `autofill`.
    package static let hostExecutable = "autofill-browser-host"
    /// The extension's id in Chromium and Chrome: the first 128 bits of SHA-256 of the pinned public
    /// key, written with the letters a–p.
    package static let chromiumID = "codbobpodobdemdnekmelhkipidjofnm"
    /// The origin Chromium and Chrome pass the host as its first argument, and the host manifest's only `allowed_origins`.
    package static let chromiumOrigin = "chrome-extension://\(chromiumID)/"
    /// The extension's id in Firefox (`allowed_extensions`; Firefox passes it as the host's second argument).
    package static let firefoxID = "browser@autofill.invalid"

    /// Whether the arguments a browser started the host with name the project's extension as the caller:
    /// Chromium passes the caller's origin first (`chrome-extension://ID/`, then on some systems
    /// `--parent-window=N`); Firefox passes the host manifest's path, then the extension's id.
    package static func callerIsTheExtension(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        if first.hasPrefix("chrome-extension://") { return first == chromiumOrigin }
        return arguments.count >= 2 && arguments[1] == firefoxID
    }
}
