import AutofillTestSupport
import AutofillWire
import Foundation
import Testing

/// Where client and agent find the agent (AgentPaths): `$XDG_RUNTIME_DIR`, else logind's
/// `/run/user/UID` when it is the user's, else nowhere; and what makes a runtime folder unfit.
struct AgentPathsTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("agent-paths")
    }

    @Test func withoutXDGRuntimeDirBothSidesFallBackToTheUsersLoginRuntimeFolder() throws {
        let root = "\(folder.path)/run-user"
        #expect(AgentPaths(environment: [:], loginRuntimeRoot: root) == nil, "no folder, no agent")
        let login = "\(root)/\(getuid())"
        try FileManager.default.createDirectory(atPath: login, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let paths = try #require(AgentPaths(environment: ["XDG_RUNTIME_DIR": ""], loginRuntimeRoot: root))
        #expect(paths.socket == "\(login)/autofill/agent/socket")
        #expect(paths.unsafeFolder() == nil)
        // XDG_RUNTIME_DIR, when set, wins.
        #expect(AgentPaths(environment: ["XDG_RUNTIME_DIR": "/x/y/"], loginRuntimeRoot: root)?.folder == "/x/y/autofill/agent")
        // Another user's folder of that name is none of ours.
        if getuid() == 0 {
            chown(login, 65534, 65534)
            #expect(AgentPaths(environment: [:], loginRuntimeRoot: root) == nil)
        }
    }

    @Test func aRuntimeFolderOpenToOthersOrALinkIsNamedWithWhatIsWrong() throws {
        let runtime = "\(folder.path)/runtime"
        try FileManager.default.createDirectory(atPath: "\(runtime)/autofill", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(runtime, 0o700)
        let paths = try #require(AgentPaths(environment: ["XDG_RUNTIME_DIR": runtime]))
        #expect(paths.unsafeFolder() == nil)
        chmod("\(runtime)/autofill", 0o711)
        #expect(paths.unsafeFolder() == "autofill's runtime folder \(runtime)/autofill is open to other users (mode 711); it must be 0700: chmod 700 \(runtime)/autofill")
        chmod("\(runtime)/autofill", 0o700)
        chmod(runtime, 0o755)
        #expect(paths.unsafeFolder()?.hasPrefix("the runtime folder (XDG_RUNTIME_DIR) \(runtime) is open to other users (mode 755)") == true)
        chmod(runtime, 0o700)
        let link = "\(folder.path)/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: runtime)
        let linked = try #require(AgentPaths(environment: ["XDG_RUNTIME_DIR": link]))
        #expect(linked.unsafeFolder()?.contains("is a symbolic link or not a folder") == true)
    }
}
