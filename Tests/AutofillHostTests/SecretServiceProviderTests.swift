@testable import AutofillHost
import AutofillCore
import AutofillStore
import AutofillTestSupport
import Foundation
import Logging
import Testing

/// The C sample with a third-party library (SecretServiceProvider, libsecret) against a real GNOME
/// Keyring on a private session bus (``PrivateKeyring``), in this process and in a helper under the
/// sandbox its Info.plist declares (`SessionBus`), built by the host's own code.
///
/// The provider finds the bus in its environment. This process's environment is not the test's to
/// change (other tests' threads read it), so in process the bus is given through the provider's
/// `SessionBusAddress` setting; a helper is given `DBUS_SESSION_BUS_ADDRESS` by its sandbox, as users
/// run it.
struct SecretServiceProviderTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    /// Loads a copy of the sample. In process, `bus` is its SessionBusAddress setting; in a helper,
    /// the sandbox the host builds for it from an environment whose DBUS_SESSION_BUS_ADDRESS is
    /// `bus` (none: nil). `sessionBus: false` takes the grant away again (a control).
    func load(_ isolation: ProviderIsolation, bus: String?, store: InMemoryIdentityStore = InMemoryIdentityStore(),
              ui: any ProviderUserInterface = UnavailableUserInterface(), sessionBus: Bool = true) throws -> any ProviderConnection {
        let plugins = "\(folder.path)/plugins-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        let bundle = try TestPlugins.copyOfSample("SecretServiceProvider", into: plugins)
        let settings = isolation == .inProcess ? bus.map { ["SessionBusAddress": $0] } ?? [:] : [:]
        let services = ProviderServices(store: store, settings: settings, userInterface: ui, logger: log.logger)
        guard isolation != .inProcess else { return try PluginLoader.load(bundle: bundle, services: services) }
        var policy = try sandbox(plugins: plugins, bus: bus)
        #expect(policy.sessionBus && policy.unixSockets && !policy.runsPrograms && !policy.network, "what SessionBus grants")
        if !sessionBus { (policy.sessionBus, policy.unixSockets) = (false, false) }
        return try HelperConnection.launch(bundle: bundle, services: services, options: HelperOptions(sandbox: policy))
    }

    /// The sandbox the host gives the provider (``SandboxContext``), for a user whose home is in the
    /// test's folder and whose session bus is `bus`.
    func sandbox(plugins: String, bus: String?) throws -> SandboxPolicy {
        let home = "\(folder.path)/home"
        try FileManager.default.createDirectory(atPath: "\(home)/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = "\(folder.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: [
            "PluginSearchPaths": [plugins], "EnabledProviders": [Self.id], "IdentityStoreDirectory": "\(folder.path)/stores",
        ] as [String: Any], format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let file = try ConfigurationFile.read(path: config, source: .option, writePath: config, home: home)
        let setup = ProviderSetup(catalog: ProviderCatalog(file: file), stores: IdentityStoreDirectory(path: "\(folder.path)/stores"),
                                  records: HostRecords(path: "\(home)/.local/state/autofill"), logger: Logger(label: "test"))
        var environment = ["HOME": home, "XDG_RUNTIME_DIR": "\(home)/run", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus
        return try SandboxContext(setup: setup, environment: environment).policy(for: try setup.catalog.manifest(for: Self.id))
    }

    static let id = "org.autofill.secretservice"

    static func password(_ service: String, _ type: ServiceIdentifier.IdentifierType, _ user: String, record: String) -> CredentialIdentity {
        .password(PasswordCredentialIdentity(serviceIdentifier: .init(identifier: service, type: type), user: user, recordIdentifier: record))
    }

    static func request(_ identity: CredentialIdentity) -> CredentialRequest {
        guard case .password(let password) = identity else { fatalError("a password identity") }
        return .password(password)
    }

    func reason(_ outcome: ProviderOutcome, _ code: ExtensionError.Code, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        guard case .canceled(let error) = outcome else {
            Issue.record("expected a cancel (\(code)), got \(outcome)", sourceLocation: sourceLocation)
            return ""
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error.failureReason ?? ""
    }

    // MARK: Items as programs store them

    @Test(arguments: Isolated.modes)
    func itemsOfEachProgramArePublishedWithoutTheirSecretsAndFilled(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        // (attributes as each program writes them, the secret, the identity expected; nil: not a login)
        let items: [([(String, String)], String, (String, ServiceIdentifier.IdentifierType, String)?)] = [
            ([("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"), ("user", "alice")],
             "git-pw\npassword_expiry_utc=1700000000\noauth_refresh_token=refresh", ("https://example.com", .url, "alice")),
            ([("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "git.example.org"), ("port", "8443"),
              ("path", "team/repo.git"), ("user", "deploy")], "deploy-pw", ("https://git.example.org:8443/team/repo.git", .url, "deploy")),
            ([("xdg:schema", "org.git.Password"), ("server", "plain.example.org"), ("user", "sam")], "plain-pw",
             ("plain.example.org", .domain, "sam")),
            ([("xdg:schema", "org.gnome.keyring.NetworkPassword"), ("protocol", "ftp"), ("server", "files.example.org"),
              ("user", "ftpuser"), ("object", "pub")], "ftp-pw", ("ftp://files.example.org/pub", .url, "ftpuser")),
            ([("xdg:schema", "org.epiphany.FormPassword"), ("uri", "https://web.example.org"), ("username", "bob"),
              ("form_username", "login"), ("form_password", "pass")], "web-pw", ("https://web.example.org", .url, "bob")),
            ([("xdg:schema", "chrome_libsecret_password_schema"), ("origin_url", "https://chrome.example.net/login"),
              ("username_value", "carol"), ("signon_realm", "https://chrome.example.net/"), ("application", "chrome-1")],
             "chrome-pw", ("https://chrome.example.net/login", .url, "carol")),
            ([("xdg:schema", "chrome_libsecret_password_schema"), ("origin_url", "https://never.example.net/"),
              ("username_value", ""), ("signon_realm", "https://never.example.net/"), ("blacklisted_by_user", "1")], "x", nil),
            ([("Title", "KeePassXC entry"), ("URL", "https://kp.example.com"), ("UserName", "dave")], "kp-pw",
             ("https://kp.example.com", .url, "dave")),
            ([("url", "lower.example.com"), ("user", "erin")], "lower-pw", ("lower.example.com", .domain, "erin")),
            ([("xdg:schema", "org.freedesktop.NetworkManager.Connection"), ("ssid", "home")], "wifi-pw", nil),
            ([("url", "https://nouser.example.com")], "nouser-pw", nil),
        ]
        var expected: [(CredentialIdentity, String)] = []
        for (index, (attributes, secret, login)) in items.enumerated() {
            let path = try await keyring.store(label: "item \(index)", attributes, secret: secret)
            if let (service, type, user) = login { expected.append((Self.password(service, type, user, record: path), secret)) }
        }
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, bus: keyring.address, store: store)
        #expect(Set(store.allIdentities) == Set(expected.map(\.0)))
        for (identity, secret) in expected {
            let password = String(secret.prefix { $0 != "\n" })  // git: the first line
            #expect(await provider.send(.credentialWithoutUserInteraction(Self.request(identity)), deadline: TestDeadline.answer)
                == .completed(.password(PasswordCredential(user: identity.displayUser, password: Secret(password)))), "\(identity)")
        }
        let secrets = expected.map(\.1) + ["refresh", "wifi-pw"]
        #expect(!log.all.contains { line in secrets.contains { line.contains($0) } }, "no secret is logged")
    }

    @Test(arguments: Isolated.modes)
    func aKeyringOfMoreItemsThanABusLetsOneConnectionAwaitIsReadWhole(isolation: ProviderIsolation) async throws {
        // This bus, like a system bus, lets a connection await at most 128 replies: the provider
        // reads 64 items at a time, so none is refused.
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        try await keyring.storeMany(300)
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, bus: keyring.address, store: store)
        #expect(store.allIdentities.count == 300)
        #expect(!log.contains("could not be read"), "\(log.all)")
        let identity = try #require(store.allIdentities.first { $0.displayUser == "user150" })
        #expect(await provider.send(.credentialWithoutUserInteraction(Self.request(identity)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "user150", password: Secret("pw-150")))))
    }

    @Test(arguments: Isolated.modes)
    func anItemCreatedAgainIsFoundByItsServiceAndUserAndAGoneOneIsNotFound(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let git = [("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"), ("user", "alice")]
        let first = try await keyring.store(label: "first", git, secret: "old-pw")
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, bus: keyring.address, store: store)
        // A record identifier naming another item, or none that exists, is checked against service and user.
        let other = try await keyring.store(label: "other", [("url", "https://other.example"), ("user", "zed")], secret: "zed-pw")
        for record in [other, "/org/freedesktop/secrets/collection/login/999", "not a path", first] {
            let identity = Self.password("https://example.com", .url, "alice", record: record)
            #expect(await provider.send(.credentialWithoutUserInteraction(Self.request(identity)), deadline: TestDeadline.answer)
                == .completed(.password(PasswordCredential(user: "alice", password: Secret("old-pw")))), "\(record)")
        }
        let gone = Self.password("https://gone.example", .url, "nobody", record: first)
        let why = reason(await provider.send(.credentialWithoutUserInteraction(Self.request(gone)), deadline: TestDeadline.answer),
                         .credentialIdentityNotFound)
        #expect(why == "the Secret Service has no item for nobody at https://gone.example any more")
    }

    @Test(arguments: Isolated.modes)
    func anItemWithoutAPasswordIsSaid(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let path = try await keyring.store(label: "Empty login", [("xdg:schema", "org.git.Password"), ("protocol", "https"),
                                                           ("server", "empty.example"), ("user", "nobody")], secret: "")
        let provider = try load(isolation, bus: keyring.address)
        let identity = Self.password("https://empty.example", .url, "nobody", record: path)
        let why = reason(await provider.send(.credentialWithoutUserInteraction(Self.request(identity)), deadline: TestDeadline.answer), .failed)
        #expect(why == "the item \"Empty login\" (nobody at https://empty.example) has no password")
    }

    // MARK: Locked collections

    @Test(arguments: Isolated.modes)
    func aLockedCollectionNeedsTheUserAndWithoutADesktopTheUserIsToldHowToUnlockIt(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let path = try await keyring.store(label: "git", [("xdg:schema", "org.git.Password"), ("protocol", "https"),
                                                    ("server", "example.com"), ("user", "alice")], secret: "git-pw")
        let provider = try load(isolation, bus: keyring.address)
        let alice = Self.request(Self.password("https://example.com", .url, "alice", record: path))
        try await keyring.lock()
        #expect(try await keyring.isLocked())
        let locked = reason(await provider.send(.credentialWithoutUserInteraction(alice), deadline: TestDeadline.answer), .userInteractionRequired)
        #expect(locked == "the Secret Service collection \"Login\" is locked")
        // The UI request asks the service to unlock; this keyring has no prompter (no desktop), so it
        // dismisses the prompt at once, and the user reads how to unlock it.
        let headless = reason(await provider.send(.interfaceToProvideCredential(alice), deadline: nil), .failed)
        #expect(headless.hasPrefix("the collection \"Login\" is locked, and GNOME Keyring cannot ask for its password here"), "\(headless)")
        #expect(headless.contains("gnome-keyring-daemon --replace --unlock --components=secrets"))
        #expect(try await keyring.isLocked(), "nothing unlocked it")
        // Unlocked the way the message says (a new daemon, given the password): the same provider
        // reaches the new one, and both requests fill.
        try await keyring.startKeyring(unlocking: true)
        for request in [ProviderRequest.interfaceToProvideCredential(alice), .credentialWithoutUserInteraction(alice)] {
            #expect(await provider.send(request, deadline: TestDeadline.answer)
                == .completed(.password(PasswordCredential(user: "alice", password: Secret("git-pw")))))
        }
    }

    @Test(arguments: Isolated.modes)
    func aKeyringLockedSinceItStartedKeepsItsIdentitiesAndIsFoundByPath(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let path = try await keyring.store(label: "web", [("xdg:schema", "org.epiphany.FormPassword"), ("uri", "https://web.example.org"),
                                                    ("username", "bob")], secret: "web-pw")
        let bob = Self.password("https://web.example.org", .url, "bob", record: path)
        let store = InMemoryIdentityStore()
        _ = try load(isolation, bus: keyring.address, store: store)
        #expect(store.allIdentities == [bob])
        // Started again without its password: the login keyring is locked, and GNOME Keyring hides the
        // attributes of its items (it keeps only their hashes), so nothing can be published from it.
        try await keyring.startKeyring(unlocking: false)
        #expect(try await keyring.isLocked())
        try store.save([Self.password("stale.example", .domain, "kept", record: "/x")])
        let provider = try load(isolation, bus: keyring.address, store: store)
        #expect(Set(store.allIdentities) == [bob, Self.password("stale.example", .domain, "kept", record: "/x")],
                "a partial view saves and removes nothing")
        #expect(log.contains("a locked collection hides some items"))
        let locked = reason(await provider.send(.credentialWithoutUserInteraction(Self.request(bob)), deadline: TestDeadline.answer),
                            .userInteractionRequired)
        #expect(locked == "the Secret Service collection \"Login\" is locked")
    }

    // MARK: The list and the configuration

    @Test(arguments: Isolated.modes)
    func theListShowsMatchingLoginsFirstAndFillsTheChosenOne(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        try await keyring.store(label: "a", [("url", "https://a.test"), ("username", "first")], secret: "one")
        try await keyring.store(label: "b", [("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"),
                                       ("user", "carol")], secret: "two")
        try await keyring.store(label: "c", [("ssid", "not a login")], secret: "three")
        let ui = ScriptedUI([.success(.choice(0))])
        let provider = try load(isolation, bus: keyring.address, ui: ui)
        let outcome = await provider.send(.credentialList([.init(identifier: "https://www.example.com/x", type: .url)]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "carol", password: Secret("two")))))
        #expect(ui.asked == [.choose(title: "Choose a login from the Secret Service", items: ["carol @ https://example.com", "first @ https://a.test"])])
    }

    @Test(arguments: Isolated.modes)
    func configurationPublishesEveryLoginAgainAndSaysWhatItFound(isolation: ProviderIsolation) async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let store = InMemoryIdentityStore()
        let ui = ScriptedUI([.success(.acknowledged)])
        let provider = try load(isolation, bus: keyring.address, store: store, ui: ui)
        #expect(store.allIdentities.isEmpty)
        try await keyring.store(label: "a", [("url", "https://a.test"), ("username", "first")], secret: "one")
        try await keyring.store(label: "b", [("url", "https://b.test"), ("username", "second")], secret: "two")
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        #expect(store.allIdentities.map(\.displayUser).sorted() == ["first", "second"])
        #expect(ui.asked == [.message(title: "Secret Service", message: "The Secret Service holds 2 logins autofill can fill.")])
    }

    // MARK: No bus, no service

    @Test(arguments: Isolated.modes)
    func aBusThatIsNotThereIsSaidClearly(isolation: ProviderIsolation) async throws {
        let missing = "unix:path=\(folder.path)/no-bus"
        let provider = try load(isolation, bus: missing)
        #expect(log.contains("no identities published"))
        let identity = Self.request(Self.password("example.com", .domain, "alice", record: ""))
        let why = reason(await provider.send(.credentialWithoutUserInteraction(identity), deadline: TestDeadline.answer), .failed)
        let from = isolation == .inProcess ? "the SessionBusAddress setting" : "DBUS_SESSION_BUS_ADDRESS"
        #expect(why.hasPrefix("cannot connect to the D-Bus session bus at \(missing) (from \(from)): "), "\(why)")
    }

    @Test func noSessionBusAtAllIsSaidClearly() async throws {
        // A helper's environment is the sandbox's: no DBUS_SESSION_BUS_ADDRESS, and no bus in its runtime folder.
        let provider = try load(.helperProcess, bus: nil)
        let identity = Self.request(Self.password("example.com", .domain, "alice", record: ""))
        let why = reason(await provider.send(.credentialWithoutUserInteraction(identity), deadline: TestDeadline.answer), .failed)
        #expect(why.hasPrefix("there is no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus."))
        #expect(why.contains("SessionBusAddress"))
    }

    @Test(arguments: Isolated.modes)
    func aBusWithoutASecretServiceIsSaidClearly(isolation: ProviderIsolation) async throws {
        let bus = try await PrivateKeyring.start(keyring: false)
        defer { bus.stop() }
        let ui = ScriptedUI([])
        let provider = try load(isolation, bus: bus.address, ui: ui)
        let why = reason(await provider.send(.credentialList([]), deadline: nil), .failed)
        #expect(why.hasPrefix("no Secret Service on the session bus at \(bus.address)"), "\(why)")
        #expect(why.contains("nothing provides org.freedesktop.secrets"))
        #expect(ui.asked.isEmpty)
    }

    // MARK: The sandbox

    @Test func anAbstractSessionBusIsReachedInsideTheSandboxAndOnlyWithSessionBus() async throws {
        let keyring = try await PrivateKeyring.start(abstract: true)
        defer { keyring.stop() }
        let path = try await keyring.store(label: "git", [("xdg:schema", "org.git.Password"), ("protocol", "https"),
                                                    ("server", "example.com"), ("user", "alice")], secret: "git-pw")
        let alice = Self.request(Self.password("https://example.com", .url, "alice", record: path))
        let provider = try load(.helperProcess, bus: keyring.address)
        #expect(await provider.send(.credentialWithoutUserInteraction(alice), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret("git-pw")))))
        // The control: the same sandbox without the grant cannot open a Unix socket at all.
        let denied = try load(.helperProcess, bus: keyring.address, sessionBus: false)
        let why = reason(await denied.send(.credentialWithoutUserInteraction(alice), deadline: TestDeadline.answer), .failed)
        #expect(why.hasPrefix("cannot connect to the D-Bus session bus at \(keyring.address)"), "\(why)")
    }
}
