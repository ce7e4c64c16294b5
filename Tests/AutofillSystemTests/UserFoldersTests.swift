import AutofillSystem
import Glibc
import Testing

struct UserFoldersTests {
    /// The effective user's home in the password database, as `getent passwd` would show it.
    static let databaseHome: String? = UserFolders.passwordDatabaseHome()

    @Test func anAbsoluteHomeAndNoXDGVariablesGiveTheSpecificationsDefaults() {
        let folders = UserFolders(environment: ["HOME": "/home/ann/"])
        #expect(folders.home == "/home/ann")
        #expect(folders.configHome == "/home/ann/.config")
        #expect(folders.dataHome == "/home/ann/.local/share")
        #expect(folders.stateHome == "/home/ann/.local/state")
        #expect(folders.cacheHome == "/home/ann/.cache")
        #expect(folders.runtimeDirectory == nil)
    }

    @Test func absoluteXDGVariablesWinAndAreStandardized() {
        let folders = UserFolders(environment: [
            "HOME": "/home/ann", "XDG_CONFIG_HOME": "/c//x/", "XDG_DATA_HOME": "/d/./x", "XDG_STATE_HOME": "/s/y/../x",
            "XDG_CACHE_HOME": "/k", "XDG_RUNTIME_DIR": "/run/user/1000/",
        ])
        #expect(folders.configHome == "/c/x")
        #expect(folders.dataHome == "/d/x")
        #expect(folders.stateHome == "/s/x")
        #expect(folders.cacheHome == "/k")
        #expect(folders.runtimeDirectory == "/run/user/1000")
    }

    @Test func relativeOrEmptyXDGVariablesAreIgnoredAsTheSpecificationSays() {
        let folders = UserFolders(environment: [
            "HOME": "/home/ann", "XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "", "XDG_STATE_HOME": "./state",
            "XDG_CACHE_HOME": "~/.cache", "XDG_RUNTIME_DIR": "run",
        ])
        #expect(folders == UserFolders(environment: ["HOME": "/home/ann"]))
    }

    @Test(.enabled(if: databaseHome != nil, "the user has a home in the password database"))
    func anUnsetEmptyOrRelativeHomeIsThePasswordDatabasesHome() throws {
        let expected = try #require(Self.databaseHome)
        for environment in [[:], ["HOME": ""], ["HOME": "relative/home"]] as [[String: String]] {
            let folders = UserFolders(environment: environment)
            #expect(folders.home == expected, "\(environment)")
            #expect(folders.dataHome == (expected == "/" ? "" : expected) + "/.local/share", "\(environment)")
        }
    }

    @Test func aGivenHomeReplacesHomeButNotTheXDGVariables() {
        let folders = UserFolders(environment: ["HOME": "/home/ann", "XDG_DATA_HOME": "/data"], home: "/srv/bob/")
        #expect(folders.home == "/srv/bob")
        #expect(folders.configHome == "/srv/bob/.config")
        #expect(folders.dataHome == "/data")
    }

    @Test func byVariableNamesEachFolder() {
        let folders = UserFolders(environment: ["HOME": "/h", "XDG_RUNTIME_DIR": "/r"])
        #expect(folders.byVariable.map(\.name) == ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"])
        #expect(folders.byVariable.map(\.path) == ["/h", "/h/.config", "/h/.local/share", "/h/.local/state", "/h/.cache", "/r"])
    }
}
