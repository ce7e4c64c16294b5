import AutofillTestSupport
import Foundation
import Testing

/// What the agent keeps between requests (docs/AGENT.md, "What the agent keeps between requests"):
/// files parsed once while their stat stamps hold still, and nothing a check decides with. Through
/// the real agent: an edited configuration takes effect on the next request, a changed bundle file
/// is refused on the next request, and the idle time is the user's configuration's, never a request's.
@Suite(.enabled(if: CLI.usesAgent))
struct AgentCacheTests {
    let home: TemporaryHome
    let config: String
    let bundle: String

    /// One fixture provider, org.t.fast: "ok" at fast.test fills `pw-<FixtureName>`.
    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        bundle = try home.fixtureProvider(id: "org.t.fast")
        config = "\(home.path)/config.plist"
        try writeConfiguration(fixtureName: "fast", idleSeconds: 1)
        try home.trust(["org.t.fast"], config: config)
        let row = #"{ "kind": "password", "serviceIdentifier": { "identifier": "fast.test", "type": "domain" }, "user": "ok" }"#
        let file = try home.file("fast.json", #"{ "identities": [ \#(row) ] }"#)
        let saved = try CLI.run(["identities", "save", "--provider", "org.t.fast", "--file", file, "--config", config], home: home.path)
        #expect(saved.status == 0, "\(saved.stderr)")
    }

    /// The request's configuration (`--config`): `FixtureName` of the same length keeps the file's size.
    func writeConfiguration(fixtureName: String, idleSeconds: Int) throws {
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.fast"],
            "ProviderSettings": ["org.t.fast": ["FixtureName": fixtureName]],
            "UserAuthentication": ["Policy": "none"], "AgentIdleTimeoutSeconds": idleSeconds,
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
    }

    /// `autofill fill fast.test --user ok`, naming the configuration with --config unless `environment` names it.
    func fill(environment: [String: String] = [:]) throws -> CLI.Result {
        let named = environment["AUTOFILL_CONFIG"] == nil ? ["--config", config] : []
        return try CLI.run(["fill", "fast.test", "--user", "ok"] + named, home: home.path, environment: environment)
    }

    /// `agent status --json`: the agent's pid and idle time.
    func status() throws -> (pid: Int, idleSeconds: Int)? {
        let result = try CLI.run(["agent", "status", "--json"], home: home.path)
        guard result.status == 0 else { return nil }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (try #require(object["pid"] as? Int), try #require(object["idleTimeoutSeconds"] as? Int))
    }

    /// Waits until every file in `paths` changed over 2 s ago, so the agent's next read of them is kept
    /// (a file changed more recently is read again at every request: `StatStamp.settleTime`).
    static func settle(_ paths: [String]) throws {
        for path in paths {
            let changed = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
            let wait = 2.3 - Date().timeIntervalSince(changed)
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        }
    }

    @Test func anEditedConfigurationTakesEffectOnTheNextRequest() throws {
        #expect(try fill().stdout.contains("pw-fast"))
        try Self.settle([config, "\(bundle)/Info.plist", "\(bundle)/libFixture.so"])
        let kept = try fill()
        #expect(kept.status == 0 && kept.stdout.contains("pw-fast"), "served from what the agent keeps: \(kept.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: config)[.size] as? Int
        try writeConfiguration(fixtureName: "fbst", idleSeconds: 1)
        #expect(try FileManager.default.attributesOfItem(atPath: config)[.size] as? Int == size, "the same size: only the stamp's times tell")
        let edited = try fill()
        #expect(edited.status == 0 && edited.stdout.contains("pw-fbst"), "the edit took effect at once: \(edited.stdout) \(edited.stderr)")
    }

    @Test func aChangedBundleFileIsRefusedOnTheNextRequest() throws {
        let plist = "\(bundle)/Info.plist", library = "\(bundle)/libFixture.so"
        #expect(try fill().status == 0)
        try Self.settle([config, plist, library])
        #expect(try fill().status == 0, "served from what the agent keeps")
        let original = try Data(contentsOf: URL(fileURLWithPath: plist))
        var changed = try #require(try PropertyListSerialization.propertyList(from: original, format: nil) as? [String: Any])
        changed["CFBundleVersion"] = "2"
        try PropertyListSerialization.data(fromPropertyList: changed, format: .xml, options: 0).write(to: URL(fileURLWithPath: plist))
        let refused = try fill()
        #expect(refused.status == 77 && refused.stderr.contains("Info.plist"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("pw-"))
        // The control: the approved bytes back (a new stamp, the approved digest) are served again.
        try original.write(to: URL(fileURLWithPath: plist))
        #expect(try fill().stdout.contains("pw-fast"))
        try Self.settle([plist])
        #expect(try fill().stdout.contains("pw-fast"))
        let handle = try #require(FileHandle(forWritingAtPath: library))
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        try handle.close()
        let refusedLibrary = try fill()
        #expect(refusedLibrary.status == 77 && refusedLibrary.stderr.contains("libFixture.so"), "\(refusedLibrary.stderr)")
        #expect(!refusedLibrary.stdout.contains("pw-"))
    }

    /// The agent keeps the provider's identity store open between requests only while its path
    /// names the same file: a store removed is no store at the next request, and a new store in its
    /// place is read from the new file, never from the one the agent had open.
    @Test func aStoreRemovedOrReplacedBetweenTwoFillsIsReadFromTheFileItsPathNames() throws {
        let store = "\(home.path)/.local/share/autofill/stores/org.t.fast.sqlite"
        #expect(try fill().stdout.contains("pw-fast"))
        #expect(try fill().stdout.contains("pw-fast"), "served from the store the agent kept open")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        let removed = try fill()
        #expect(removed.status != 0 && !removed.stdout.contains("pw-"), "no store, no identity: \(removed.stdout) \(removed.stderr)")
        // A new store in its place, whose one identity is for another site: fast.test has none.
        let row = #"{ "kind": "password", "serviceIdentifier": { "identifier": "slow.test", "type": "domain" }, "user": "ok" }"#
        let file = try home.file("slow.json", #"{ "identities": [ \#(row) ] }"#)
        let saved = try CLI.run(["identities", "save", "--provider", "org.t.fast", "--file", file, "--config", config], home: home.path)
        #expect(saved.status == 0, "\(saved.stderr)")
        let replaced = try fill()
        #expect(replaced.status != 0 && !replaced.stdout.contains("pw-"), "read from the new store: \(replaced.stdout) \(replaced.stderr)")
        // The control: the new store's own identity fills.
        let other = try CLI.run(["fill", "slow.test", "--user", "ok", "--config", config], home: home.path)
        #expect(other.status == 0 && other.stdout.contains("pw-fast"), "\(other.stdout) \(other.stderr)")
    }

    /// The permission checks resolve links at every request (RealPath remembers only within one).
    @Test func aConfigurationLinkRetargetedUnderAFolderOthersCanWriteIsRefusedOnTheNextRequest() throws {
        let files = FileManager.default
        let own = "\(home.path)/configs", open = "\(home.path)/open", link = "\(home.path)/linked.plist"
        for folder in [own, open] { try files.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: own)
        try files.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open)
        for folder in [own, open] { try files.copyItem(atPath: config, toPath: "\(folder)/config.plist") }
        try files.createSymbolicLink(atPath: link, withDestinationPath: "\(own)/config.plist")
        func fill() throws -> CLI.Result {
            try CLI.run(["fill", "fast.test", "--user", "ok", "--config", link], home: home.path)
        }
        // Control: through a link to a file in a folder only the user can write, the provider is served, twice.
        for _ in 0..<2 {
            let served = try fill()
            #expect(served.status == 0 && served.stdout.contains("pw-fast"), "\(served.stderr)")
        }
        // The same link, now to a copy in a folder anyone can write (replaced by a rename, as an attacker would).
        try files.createSymbolicLink(atPath: "\(link).new", withDestinationPath: "\(open)/config.plist")
        #expect(rename("\(link).new", link) == 0)
        let refused = try fill()
        #expect(refused.status != 0 && refused.stderr.contains(open), "\(refused.stderr)")
        #expect(!refused.stdout.contains("pw-"))
    }

    /// A copy of the configuration at `path`, naming the plugin folder by its absolute path.
    func absoluteCopy(to path: String) throws {
        var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as? [String: Any])
        plist["PluginSearchPaths"] = ["\(home.path)/plugins"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
    }

    /// A copy of the configuration in `home/cfg/sub` (both 0700), and `autofill fill` naming it.
    func privateConfiguration() throws -> (cfg: String, fill: () throws -> CLI.Result) {
        let files = FileManager.default
        let cfg = "\(home.path)/cfg"
        try files.createDirectory(atPath: "\(cfg)/sub", withIntermediateDirectories: true)
        for folder in [cfg, "\(cfg)/sub"] { try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder) }
        try absoluteCopy(to: "\(cfg)/sub/config.plist")
        return (cfg, { try CLI.run(["fill", "fast.test", "--user", "ok", "--config", "\(cfg)/sub/config.plist"], home: self.home.path) })
    }

    /// The permission checks look at every folder above at every request (a folder's status is kept
    /// within one request only: RealPath.status(of:)).
    @Test func aFolderAboveTheConfigurationMadeWritableByOthersBetweenTwoWarmFillsIsRefused() throws {
        let (cfg, fill) = try privateConfiguration()
        for _ in 0..<2 {
            let served = try fill()
            #expect(served.status == 0 && served.stdout.contains("pw-fast"), "\(served.stderr)")
        }
        #expect(chmod(cfg, 0o777) == 0)
        let refused = try fill()
        #expect(refused.status != 0 && refused.stderr.contains(cfg) && refused.stderr.contains("writable"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("pw-"))
        // The control: private again, served again.
        #expect(chmod(cfg, 0o700) == 0)
        let again = try fill()
        #expect(again.status == 0 && again.stdout.contains("pw-fast"), "\(again.stderr)")
    }

    /// A path is resolved from its resolved folder within a request (RealPath), afresh at every request.
    @Test func aLinkPlantedInPlaceOfAFolderAlongTheConfigurationsPathBetweenTwoWarmFillsIsRefused() throws {
        let (cfg, fill) = try privateConfiguration()
        let files = FileManager.default, open = "\(home.path)/open"
        try files.createDirectory(atPath: open, withIntermediateDirectories: false)
        try files.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open)
        try absoluteCopy(to: "\(open)/config.plist")
        for _ in 0..<2 {
            let served = try fill()
            #expect(served.status == 0 && served.stdout.contains("pw-fast"), "\(served.stderr)")
        }
        // cfg/sub becomes a link to a folder anyone can write (the folder moved aside, the link renamed in).
        #expect(rename("\(cfg)/sub", "\(cfg)/sub-old") == 0)
        #expect(symlink(open, "\(cfg)/sub") == 0)
        let refused = try fill()
        #expect(refused.status != 0 && refused.stderr.contains(open), "\(refused.stderr)")
        #expect(!refused.stdout.contains("pw-"))
        // The control: the link to a private folder is followed and served.
        #expect(unlink("\(cfg)/sub") == 0)
        #expect(symlink("\(cfg)/sub-old", "\(cfg)/sub") == 0)
        let linked = try fill()
        #expect(linked.status == 0 && linked.stdout.contains("pw-fast"), "\(linked.stderr)")
    }

    @Test func theIdleTimeIsTheUsersConfigurationsNeverARequests() throws {
        // The request's configuration says 1 s, by --config and by $AUTOFILL_CONFIG; the user's says nothing (900 s).
        #expect(try fill().status == 0)
        #expect(try fill(environment: ["AUTOFILL_CONFIG": config]).status == 0)
        let (pid, idle) = try #require(try status())
        #expect(idle == 900, "a request's AgentIdleTimeoutSeconds set the agent's idle time")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try status()?.pid == pid, "the agent outlived the request's 1 s")
        // The control: the user's own configuration sets it, read again at the next request that uses it.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"], "AgentIdleTimeoutSeconds": 3])
        _ = try CLI.run(["suggest", "fast.test"], home: home.path)
        #expect(try status()?.idleSeconds == 3)
        // Watched from outside (a status would count as a request).
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, ProcessTable.isRunning(Int32(pid)) { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!ProcessTable.isRunning(Int32(pid)), "the agent ended after the user's 3 s")
    }
}
