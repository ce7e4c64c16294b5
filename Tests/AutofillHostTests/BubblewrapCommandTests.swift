@testable import AutofillHost
import Testing

/// The translation of a sandbox policy into bubblewrap's command line (``BubblewrapCommand``), on a
/// file system the test makes up: nothing runs. The same translation runs for real in the CLI tests
/// (SandboxAttackTests, NamespaceSandboxTests).
struct BubblewrapCommandTests {
    /// A made-up file system: what exists (its real path) and which paths are links.
    static func fileSystem(_ real: [String: String], links: Set<String> = []) -> BubblewrapCommand.FileSystem {
        BubblewrapCommand.FileSystem(realPath: { real[$0] }, isSymbolicLink: { links.contains($0) })
    }

    static let files = fileSystem([
        "/usr": "/usr", "/lib": "/usr/lib", "/lib64": "/usr/lib64", "/etc/passwd": "/etc/passwd",
        "/opt/swift/usr/lib/swift/linux": "/opt/swift/usr/lib/swift/linux", "/dev/null": "/dev/null", "/dev/urandom": "/dev/urandom",
        "/home/u/plugins/V.afprovider": "/home/u/plugins/V.afprovider",
        "/home/u/.local/share/autofill/providers/v": "/home/u/.local/share/autofill/providers/v",
        "/run/user/1/autofill/providers/v": "/run/user/1/autofill/providers/v",
        "/home/u/vault": "/home/u/vault", "/home/u/vault/sub": "/home/u/vault/sub",
        "/home/u/notes": "/home/u/real-notes",
        "/proc/self/root": "/", "/home/u/escape": "/proc/1/root", "/home/u/sys": "/sys/kernel",
        "/bin/helper": "/build/debug/autofill-provider-helper", "/bin": "/usr/bin", "/sbin": "/usr/sbin",
    ], links: ["/lib", "/lib64", "/home/u/notes", "/proc/self/root", "/bin/helper", "/bin", "/sbin"])

    static func policy(_ extra: [SandboxPolicy.Rule] = [], network: Bool = false) -> SandboxPolicy {
        let rules: [SandboxPolicy.Rule] = [
            .init(path: "/usr", access: .read, reason: "system"), .init(path: "/lib", access: .read, reason: "system"),
            .init(path: "/lib64", access: .read, reason: "system"), .init(path: "/etc/passwd", access: .read, reason: "system"),
            .init(path: "/etc/absent.conf", access: .read, reason: "system"),
            .init(path: "/opt/swift/usr/lib/swift/linux", access: .read, reason: "the Swift runtime"),
            .init(path: "/home/u/plugins/V.afprovider", access: .read, reason: "its bundle"),
            .init(path: "/dev/null", access: [.read, .write], reason: "devices"), .init(path: "/dev/urandom", access: [.read, .write], reason: "devices"),
            .init(path: "/home/u/.local/share/autofill/providers/v", access: [.read, .write], reason: "data"),
            .init(path: "/run/user/1/autofill/providers/v", access: [.read, .write], reason: "runtime"),
        ]
        return SandboxPolicy(rules: rules + extra, network: network, dataFolder: "/home/u/.local/share/autofill/providers/v",
                             runtimeFolder: "/run/user/1/autofill/providers/v")
    }

    static func command(_ policy: SandboxPolicy, bus: String? = nil) -> [String] {
        BubblewrapCommand(policy: policy, helper: "/bin/helper", helperArguments: ["--parent", "1"], busFolder: bus, fileSystem: files).arguments
    }

    /// The (option, source, destination) triples of the mounts in `arguments`.
    static func mounts(_ arguments: [String]) -> [(String, String, String)] {
        var result: [(String, String, String)] = []
        var index = 0
        while index < arguments.count {
            if ["--bind", "--ro-bind", "--dev-bind", "--symlink"].contains(arguments[index]) {
                result.append((arguments[index], arguments[index + 1], arguments[index + 2]))
                index += 3
            } else {
                index += 1
            }
        }
        return result
    }

    @Test func everyNamespaceIsItsOwnAndTheHelperRunsLast() {
        let arguments = Self.command(Self.policy())
        for option in ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"] {
            #expect(arguments.contains(option), "\(option)")
        }
        #expect(!arguments.contains("--share-net"), "no network namespace sharing without ports")
        #expect(arguments.split(separator: "--cap-drop").count == 2 && arguments.contains("ALL"))
        #expect(Array(arguments.drop { $0 != "--" }) == ["--", "/build/debug/autofill-provider-helper", "--parent", "1"],
                "the helper at its real path, after everything else")
        #expect(Self.command(Self.policy(network: true)).contains("--share-net"))
        // A private /proc and /tmp.
        #expect(arguments.contains("--proc") && arguments.contains("--tmpfs"))
    }

    @Test func onlyThePolicysPathsAreBoundEachAtItsRealPathReadOnlyUnlessWritten() {
        let mounts = Self.mounts(Self.command(Self.policy()))
        let destinations = mounts.map(\.2)
        #expect(mounts.contains { $0 == ("--ro-bind", "/usr", "/usr") })
        #expect(mounts.contains { $0 == ("--symlink", "/usr/lib64", "/lib64") }, "a system link as on the host")
        #expect(!destinations.contains("/usr/lib64"), "inside /usr already: no second mount")
        #expect(mounts.contains { $0 == ("--symlink", "/usr/bin", "/bin") }, "the system's own links into /usr")
        #expect(mounts.contains { $0 == ("--bind", "/home/u/.local/share/autofill/providers/v", "/home/u/.local/share/autofill/providers/v") })
        #expect(mounts.contains { $0 == ("--ro-bind", "/home/u/plugins/V.afprovider", "/home/u/plugins/V.afprovider") })
        #expect(mounts.contains { $0 == ("--dev-bind", "/dev/null", "/dev/null") })
        #expect(mounts.contains { $0 == ("--ro-bind", "/build/debug/autofill-provider-helper", "/build/debug/autofill-provider-helper") })
        #expect(!destinations.contains("/etc/absent.conf"), "what does not exist is not made")
        #expect(!destinations.contains { $0.hasPrefix("/run/user/1") && $0 != "/run/user/1/autofill/providers/v" },
                "nothing else of XDG_RUNTIME_DIR (the agent's socket, other programs' sockets)")
        #expect(!destinations.contains("/home/u"), "not the home folder")
    }

    @Test func aDeclaredLinkIsBoundAtWhatItResolvesTo() {
        let mounts = Self.mounts(Self.command(Self.policy([.init(path: "/home/u/notes", access: .read, reason: "its Notes setting")])))
        #expect(mounts.contains { $0 == ("--ro-bind", "/home/u/real-notes", "/home/u/real-notes") })
        #expect(mounts.contains { $0 == ("--symlink", "/home/u/real-notes", "/home/u/notes") })
        #expect(!mounts.contains { $0.0 != "--symlink" && $0.2 == "/home/u/notes" }, "never bound at the link's own path")
    }

    @Test func aPathThroughALinkAboveItIsAlsoThereByItsOwnName() {
        let files = Self.fileSystem(["/usr": "/usr", "/home/u/.local/share/autofill/providers/v": "/data/home/u/.local/share/autofill/providers/v",
                                     "/bin/helper": "/bin/helper"])
        let policy = SandboxPolicy(rules: [.init(path: "/usr", access: .read, reason: "system"),
                                           .init(path: "/home/u/.local/share/autofill/providers/v", access: [.read, .write], reason: "data")],
                                   dataFolder: "/home/u/.local/share/autofill/providers/v")
        let mounts = Self.mounts(BubblewrapCommand(policy: policy, helper: "/bin/helper", helperArguments: [], busFolder: nil, fileSystem: files).arguments)
        let real = "/data/home/u/.local/share/autofill/providers/v"
        #expect(mounts.contains { $0 == ("--bind", real, real) })
        #expect(mounts.contains { $0 == ("--bind", real, "/home/u/.local/share/autofill/providers/v") }, "\(mounts)")
    }

    @Test(arguments: ["/proc/self/root", "/home/u/escape", "/home/u/sys"])
    func theRootProcAndSysAreNeverBoundWhateverAPathResolvesTo(path: String) {
        let mounts = Self.mounts(Self.command(Self.policy([.init(path: path, access: [.read, .write], reason: "hostile")])))
        #expect(!mounts.contains { $0.1 == "/" || $0.1.hasPrefix("/proc") || $0.1.hasPrefix("/sys") }, "\(mounts)")
        #expect(!mounts.contains { $0.2 == path }, "no link to it either")
    }

    @Test func aFolderIsMountedBeforeWhatLiesInItAndAWritableOneInsideAReadOnlyOneKeepsItsOwnMount() {
        let mounts = Self.mounts(Self.command(Self.policy([
            .init(path: "/home/u/vault/sub", access: [.read, .write], reason: "its folder"),
            .init(path: "/home/u/vault", access: .read, reason: "its file"),
        ])))
        let outer = mounts.firstIndex { $0 == ("--ro-bind", "/home/u/vault", "/home/u/vault") }
        let inner = mounts.firstIndex { $0 == ("--bind", "/home/u/vault/sub", "/home/u/vault/sub") }
        #expect(outer != nil && inner != nil && outer! < inner!, "\(mounts)")
        // A read-only path inside a writable folder needs no mount of its own (Landlock keeps it read-only).
        let merged = Self.mounts(Self.command(Self.policy([
            .init(path: "/home/u/vault", access: [.read, .write], reason: "its folder"),
            .init(path: "/home/u/vault/sub", access: .read, reason: "its file"),
        ])))
        #expect(!merged.contains { $0.2 == "/home/u/vault/sub" })
    }

    @Test func theSessionBusIsTheProxysFolderAlone() {
        let arguments = Self.command(Self.policy(), bus: "/run/user/1/autofill-bus.abc")
        #expect(Self.mounts(arguments).contains { $0 == ("--ro-bind", "/run/user/1/autofill-bus.abc", BubblewrapCommand.busFolder) })
        #expect(BubblewrapCommand.busAddress == "unix:path=\(BubblewrapCommand.busFolder)/bus")
        #expect(!Self.mounts(Self.command(Self.policy())).contains { $0.2 == BubblewrapCommand.busFolder })
    }

    @Test func theLoadersTraceFolderIsBoundOnlyWhenTheUserAskedForATrace() {
        let traced = BubblewrapCommand(policy: Self.policy(), helper: "/bin/helper", helperArguments: [], busFolder: nil,
                                       loaderTrace: "/home/u/vault", fileSystem: Self.files).arguments
        #expect(Self.mounts(traced).contains { $0 == ("--bind", "/home/u/vault", "/home/u/vault") })
        #expect(!Self.mounts(Self.command(Self.policy())).contains { $0.2 == "/home/u/vault" })
    }

    @Test func theProxyTalksOnlyToTheDeclaredNamesAndSeesTheVisibleOnes() {
        #expect(DBusProxy.arguments(upstream: "unix:path=/run/user/1/bus", socket: "/x/bus", names: ["org.freedesktop.secrets"],
                                    visibleNames: ["org.gnome.keyring"], lifeline: 3)
            == ["--fd=3", "unix:path=/run/user/1/bus", "/x/bus", "--filter", "--talk=org.freedesktop.secrets", "--see=org.gnome.keyring"])
    }
}
