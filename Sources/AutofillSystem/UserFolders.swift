internal import Glibc

/// The user's folders, resolved once by one rule (the XDG Base Directory specification): the home
/// folder, the `XDG_*` base folders and the runtime folder.
///
/// - `home`: `$HOME` when it is an absolute path; else (unset, empty or relative) the home of the
///   effective user's password-database entry; else `/`.
/// - `configHome`, `dataHome`, `stateHome`, `cacheHome`: `$XDG_CONFIG_HOME`, `$XDG_DATA_HOME`,
///   `$XDG_STATE_HOME`, `$XDG_CACHE_HOME` when absolute; a relative value is ignored, as the
///   specification says, and the default under `home` is used (`.config`, `.local/share`,
///   `.local/state`, `.cache`).
/// - `runtimeDirectory`: `$XDG_RUNTIME_DIR` when absolute, else nil.
///
/// Every path is standardized (``LexicalPath/standardized(_:)``): no trailing slash, no `.` or `..`.
package struct UserFolders: Hashable, Sendable {
    package let home: String
    package let configHome: String
    package let dataHome: String
    package let stateHome: String
    package let cacheHome: String
    package let runtimeDirectory: String?

    /// The folders `environment` names; `home`, when given, is the home folder to use instead of
    /// `$HOME` (a configuration file's own home).
    package init(environment: [String: String], home: String? = nil) {
        func absolute(_ name: String) -> String? {
            environment[name].flatMap { $0.hasPrefix("/") ? LexicalPath.standardized($0) : nil }
        }
        let home = LexicalPath.standardized(home ?? absolute("HOME") ?? Self.passwordDatabaseHome() ?? "/")
        self.home = home
        configHome = absolute("XDG_CONFIG_HOME") ?? LexicalPath.standardized("\(home)/.config")
        dataHome = absolute("XDG_DATA_HOME") ?? LexicalPath.standardized("\(home)/.local/share")
        stateHome = absolute("XDG_STATE_HOME") ?? LexicalPath.standardized("\(home)/.local/state")
        cacheHome = absolute("XDG_CACHE_HOME") ?? LexicalPath.standardized("\(home)/.cache")
        runtimeDirectory = absolute("XDG_RUNTIME_DIR")
    }

    /// The folders by the names of the variables that set them (`HOME`, `XDG_CONFIG_HOME`, ...,
    /// `XDG_RUNTIME_DIR`), for messages that name what differs.
    package var byVariable: [(name: String, path: String?)] {
        [("HOME", home), ("XDG_CONFIG_HOME", configHome), ("XDG_DATA_HOME", dataHome), ("XDG_STATE_HOME", stateHome),
         ("XDG_CACHE_HOME", cacheHome), ("XDG_RUNTIME_DIR", runtimeDirectory)]
    }

    /// The home folder of the effective user's password-database entry, or nil when it has none.
    package static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir else {
            return nil
        }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
