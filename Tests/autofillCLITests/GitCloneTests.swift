import AutofillTestSupport
import Foundation
import Glibc
import Testing

/// A `git clone` over HTTP with Basic authentication, from git's own smart-HTTP server program
/// (git-http-backend, behind Support/git_http_server.py), with the password from autofill.
@Suite(.serialized)
struct GitCloneTests {
    let home: TemporaryHome
    let config: String

    /// Netrc holding carol's password for 127.0.0.1; the `pam` policy with a service that asks nothing;
    /// a bare repository `app.git` with one commit in `server/`.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        let netrc = try home.file("netrc", "machine 127.0.0.1 login carol password clone-pw\n")
        config = try home.config(enabled: ["org.t.netrc"], settings: ["org.t.netrc": ["NetrcFile": netrc]])
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        plist["UserAuthentication"] = try home.permitPolicy()
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.t.netrc"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)

        let work = "\(home.path)/work"
        try FileManager.default.createDirectory(atPath: "\(home.path)/server", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        _ = try home.file("work/README", "served over HTTP\n")
        for arguments in [
            ["init", "-q", "--bare", "-b", "main", "\(home.path)/server/app.git"],
            ["-C", work, "init", "-q", "-b", "main"], ["-C", work, "add", "README"],
            ["-C", work, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"],
            ["-C", work, "push", "-q", "\(home.path)/server/app.git", "main"],
        ] {
            let result = try Git.run(arguments, home: home.path, config: config, helper: nil)
            try #require(result.status == 0, "git \(arguments): \(result.stderr)")
        }
    }

    /// Starts the server for `server/`, runs `body` with its base URL, and kills it: it never outlives
    /// the test (SIGKILL, which no signal mask or disposition it inherited from the test runner blocks). Returns
    /// what `body` returned and the server's request log.
    func withServer<T>(_ body: (String) throws -> T) throws -> (T, log: String) {
        let portFile = "\(home.path)/server-port"
        let server = try ChildProcess.start("/usr/bin/python3", [
            "\(CLI.root)/Tests/autofillCLITests/Support/git_http_server.py", "\(home.path)/server", "carol", "clone-pw", portFile,
        ], environment: ["PATH": "/usr/bin:/bin"])
        var stopped = false
        defer {
            if !stopped {
                kill(server.pid, SIGKILL)
                _ = server.wait()
            }
        }
        let port = try CLI.waitForFile(portFile, containing: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        let value = try body("http://127.0.0.1:\(port)")
        kill(server.pid, SIGKILL)
        let log = server.wait().stderr
        stopped = true
        return (value, log)
    }

    @Test func gitClonesWithThePasswordFromAutofill() throws {
        let (result, log) = try withServer { base in
            try Git.run(["clone", "-q", "\(base)/app.git", "\(home.path)/clone"], home: home.path, config: config)
        }
        #expect(result.status == 0, "\(result.stderr)\n\(log)")
        #expect(try String(contentsOfFile: "\(home.path)/clone/README", encoding: .utf8) == "served over HTTP\n")
        #expect(log.contains("GET /app.git/info/refs 401 user=-"), "the server asked: \(log)")
        #expect(log.contains("POST /app.git/git-upload-pack 200 user=carol"), "\(log)")
        #expect(result.stderr.isEmpty, "the helper's store after the clone is quiet: \(result.stderr)")
        #expect(!result.stderr.contains("clone-pw"))
    }

    @Test func withoutTheHelperGitAsksAndCannot() throws {
        let (result, _) = try withServer { base in
            try Git.run(["clone", "-q", "\(base)/app.git", "\(home.path)/clone"], home: home.path, config: config, helper: nil)
        }
        #expect(result.status == 128)
        #expect(result.stderr.contains("terminal prompts disabled"), "\(result.stderr)")
    }
}
