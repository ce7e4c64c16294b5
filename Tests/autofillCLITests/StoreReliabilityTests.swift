import AutofillTestSupport
import AutofillCore
import AutofillStore
import Foundation
import Testing

/// Identity stores under a writing companion process: no errors, no lost writes, no torn reads,
/// and a `kill -9` in the middle of a large replace leaves exactly the old or the new set.
@Suite(.serialized)
struct StoreReliabilityTests {
    let home: TemporaryHome
    let config: String
    static let provider = "org.t.netrc"

    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("NetrcProvider", as: Self.provider)
        config = try home.config(enabled: [Self.provider], settings: [Self.provider: ["NetrcFile": "/nonexistent"]])
        try home.trust([Self.provider], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    var store: SQLiteIdentityStore {
        get throws {
            try #require(try SQLiteIdentityStore.openIfExists(
                providerID: Self.provider, in: IdentityStoreDirectory(path: "\(home.path)/.local/share/autofill/stores")))
        }
    }

    /// An identities file of `count` passwords named `prefix-N` at example.com.
    func identitiesFile(_ name: String, prefix: String, count: Int) throws -> String {
        var text = "{ \"identities\": [\n"
        for index in 0..<count {
            text += "{ \"kind\": \"password\", \"serviceIdentifier\": { \"identifier\": \"example.com\", \"type\": \"domain\" }, \"user\": \"\(prefix)-\(index)\" }"
            text += index == count - 1 ? "\n" : ",\n"
        }
        return try home.file(name, text + "] }")
    }

    /// Runs a shell loop of `autofill` writes in the background.
    func writer(_ commands: [[String]]) throws -> ChildProcess.Running {
        let script = commands.map { ([CLI.binary] + $0 + ["--config", config]).map { "'\($0)'" }.joined(separator: " ") + " >/dev/null || exit 1" }
            .joined(separator: "\n")
        return try ChildProcess.start(
            "/bin/sh", ["-c", script],
            environment: CLI.environment(home: home.path))
    }

    @Test func readsDuringAlternatingReplacesAreNeverTorn() throws {
        let a = try identitiesFile("a.json", prefix: "a", count: 300)
        let b = try identitiesFile("b.json", prefix: "b", count: 300)
        let store = try store
        try store.replace(with: [])
        let writes = (0..<30).map { ["identities", "replace", "--provider", Self.provider, "--file", $0 % 2 == 0 ? a : b] }
        let process = try writer(writes)
        var reads = 0, sawA = 0, sawB = 0
        while process.isRunning || reads == 0 {
            let users = try store.identities(lookupKey: "example.com", kinds: [.password]).map(\.displayUser)
            reads += 1
            guard !users.isEmpty else { continue }  // before the first replace committed
            #expect(users.count == 300, "a read saw \(users.count) identities")
            let prefixes = Set(users.map { $0.prefix(2) })
            #expect(prefixes.count == 1, "a read mixed two sets: \(prefixes)")
            if prefixes == ["a-"] { sawA += 1 } else { sawB += 1 }
        }
        #expect(process.wait().status == 0, "a companion write failed")
        #expect(sawA > 0 && sawB > 0, "reads interleaved with writes (\(reads) reads: \(sawA) of set a, \(sawB) of set b)")
        #expect(try store.count() == 300)
    }

    @Test func noWriteIsLostWhileTheHostReads() throws {
        let files = try (0..<25).map { index in
            try home.file("one-\(index).json", """
                { "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "example.com", "type": "domain" }, "user": "one-\(index)" } ] }
                """)
        }
        let store = try store
        try store.replace(with: [])
        let process = try writer(files.map { ["identities", "save", "--provider", Self.provider, "--file", $0] })
        var last = 0
        while process.isRunning {
            let count = try store.identities(lookupKey: "example.com", kinds: [.password]).count
            #expect(count >= last, "the store went from \(last) to \(count) identities")
            last = count
        }
        #expect(process.wait().status == 0)
        #expect(Set(try store.allIdentities().map(\.displayUser)) == Set((0..<25).map { "one-\($0)" }))
    }

    @Test func killingAWriterMidReplaceLeavesTheOldOrTheNewSet() throws {
        let count = 100_000
        let new = try identitiesFile("new.json", prefix: "new", count: count)
        let store = try store
        let old = (0..<count).map { CredentialIdentity.password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "old-\($0)")) }
        try store.replace(with: old)

        // How long an undisturbed replace takes, to aim the kills inside it.
        let started = Date()
        let timing = try writer([["identities", "replace", "--provider", Self.provider, "--file", new]])
        let timed = timing.wait()
        let duration = Date().timeIntervalSince(started)
        #expect(timed.status == 0)

        var outcomes: [String] = []
        for fraction in [0.3, 0.55, 0.7, 0.8, 0.9, 0.97] {
            try store.replace(with: old)
            let process = try writer([["identities", "replace", "--provider", Self.provider, "--file", new]])
            Thread.sleep(forTimeInterval: duration * fraction)
            kill(process.pid, SIGKILL)
            kill(-process.pid, SIGKILL)
            _ = process.wait()
            Thread.sleep(forTimeInterval: 0.05)
            // The sh wrapper died; make sure its autofill child did too before reading.
            _ = try TemporaryHome.killChildren(named: "autofill", home: home.path)
            let users = try store.allIdentities(kinds: [.password]).map(\.displayUser)
            #expect(users.count == count, "after a kill at \(fraction): \(users.count) identities")
            let prefixes = Set(users.map { $0.split(separator: "-")[0] })
            #expect(prefixes.count == 1, "after a kill at \(fraction) the store mixes \(prefixes)")
            outcomes.append(prefixes.first.map(String.init) ?? "empty")
        }
        #expect(outcomes.contains("old"), "no kill landed before the commit: \(outcomes)")
        print("kill -9 during a \(count)-identity replace (undisturbed: \(String(format: "%.2f", duration)) s): \(outcomes)")
    }
}

extension TemporaryHome {
    /// SIGKILLs any `autofill` process whose environment names this home (the writer's children).
    static func killChildren(named name: String, home: String) throws -> Int {
        var killed = 0
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = Int32(entry),
                  let command = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                  command.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                  String(decoding: environ, as: UTF8.self).contains("HOME=\(home)")
            else { continue }
            kill(pid, SIGKILL)
            killed += 1
        }
        if killed > 0 { Thread.sleep(forTimeInterval: 0.1) }
        return killed
    }
}
