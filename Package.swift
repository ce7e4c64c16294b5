// swift-tools-version: 6.0
// autofill: a multi-provider credential AutoFill host for Linux.
//
// Layers (each a target; see docs/ARCHITECTURE.md):
//   CAutofillProvider    the provider C ABI: one header, one .c
//   AutofillSystem       the Swift layer over the system: the user's folders (HOME/XDG), the atomic file
//                        writer, the path normaliser, and CAutofillSystem's calls as Swift functions that
//                        throw SystemError (one file per C concept; no Foundation: the client links it)
//   AutofillCore         models: service identifiers, identities, credentials, requests,
//                        errors, capabilities (no libc, no dlopen)
//   AutofillMatching     service names, public suffixes (libpsl), IDNA (libidn2), matching rules
//   AutofillStore        the per-provider identity stores (SQLite)
//   AutofillABI          the one translation between C ABI structs and core models
//   CFFI                 libffi shim (system library): per-plugin host-service closures
//   CArgon2              libargon2 (system library): Argon2 key derivation for the Vault and KeePass databases
//   CGcrypt, CZlib       libgcrypt and zlib (system libraries): KeePass databases' ciphers and gzip
//   CLibXML2             libxml2 (system library): the push parser for KeePass databases' XML and key files
//   AutofillProviderRuntime  what a provider process needs and no more: reads and checks a bundle, loads
//                        its library, the helper protocol and its serving loop, and the sandbox entry
//                        (the helper links this alone: no PAM, SQLite, D-Bus, libpsl, libidn2)
//   AutofillHost         discovers and trusts plugins; configuration; routing; spawns and talks to helpers
//   CAutofillSystem      the libc calls Swift cannot make, one header, one .c per concept, prefix afsys_
//                        (spawning, processes, the fault reporter, descriptors, Unix sockets, the peer,
//                        the lock file, the terminal)
//   CAutofillSandbox     the provider sandbox's kernel calls: Landlock, seccomp (libseccomp), prctl
//   CAutofillSessionBus  logind's Lock and PrepareForSleep on the system bus (libdbus), for the agent
//   CDBus                libdbus (system library): used by CAutofillSessionBus alone
//   autofill-provider-helper  runs one plugin in a process of its own (the default isolation)
//   AutofillProviderKit  the Swift SDK for provider authors
//   AutofillCompanion    a provider's companion program writing its identity store
//   AutofillWire         the framing both protocols share, the agent's client side, and the small
//                        terminal manners the CLIs share (a progress line) (no Foundation)
//   autofill             the small client users run: agent commands to the agent, the rest to autofill-cli
//   autofill-cli         the command-line tool (every command, in its own process or for the agent)
//   git-credential-autofill  git's credential helper: the same small client, for `autofill git-credential`
//   autofill-browser-host  the WebExtension's native-messaging host (BrowserExtension/): a client of the agent too
//   AutofillOTP          one-time codes (HOTP/TOTP, otpauth:// URIs) for providers
//   AutofillWebAuthn     WebAuthn authenticator structures (CBOR, COSE keys, authenticator data,
//                        attestation objects, ES256) for passkey providers and the host
//   Plugins/*            the sample providers (Swift ones here; the C one is built by cc);
//                        VaultProvider has VaultCore (the encrypted vault) and autofill-vault (its companion);
//                        KeePassProvider has KDBX (a read-only KeePass database reader)
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// How the small clients are linked (the executable targets autofill and git-credential-autofill).
let clientLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-static-executable", "-use-ld=lld",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/autofill/startup.order",
        "-Xlinker", "--no-warn-symbol-ordering",
    ]),
]

let package = Package(
    name: "autofill",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "autofill", targets: ["autofill"]),
        .executable(name: "autofill-cli", targets: ["autofill-cli"]),
        .executable(name: "git-credential-autofill", targets: ["git-credential-autofill"]),
        .executable(name: "autofill-browser-host", targets: ["autofill-browser-host"]),
        .executable(name: "autofill-provider-helper", targets: ["autofill-provider-helper"]),
        .library(name: "AutofillProviderKit", targets: ["AutofillProviderKit"]),
        .library(name: "AutofillCompanion", targets: ["AutofillCompanion"]),
        .library(name: "AutofillOTP", targets: ["AutofillOTP"]),
        .library(name: "AutofillWebAuthn", targets: ["AutofillWebAuthn"]),
        .executable(name: "autofill-vault", targets: ["autofill-vault"]),
        .library(name: "VaultProvider", type: .dynamic, targets: ["VaultProvider"]),
        .library(name: "AuthenticatorProvider", type: .dynamic, targets: ["AuthenticatorProvider"]),
        .library(name: "KeePassProvider", type: .dynamic, targets: ["KeePassProvider"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .target(name: "CAutofillProvider"),
        .target(name: "CAutofillSystem"),
        .target(name: "CAutofillSandbox", linkerSettings: [.linkedLibrary("seccomp")]),
        .target(name: "AutofillWire", dependencies: ["AutofillSystem"]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(name: "CAutofillSessionBus", dependencies: ["CDBus"]),
        .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
        .target(name: "AutofillCore"),
        .target(name: "AutofillSystem", dependencies: ["CAutofillSystem"]),
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2", providers: [.apt(["libidn2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPAM", providers: [.apt(["libpam0g-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CGcrypt", pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(name: "AutofillMatching", dependencies: ["AutofillCore", "CPSL", "CIDN2"]),
        .target(name: "AutofillStore", dependencies: ["AutofillCore", "AutofillMatching", "AutofillSystem", "CSQLite"]),
        .target(name: "AutofillABI", dependencies: ["AutofillCore", "CAutofillProvider"]),
        .target(
            name: "AutofillProviderRuntime",
            dependencies: [
                "AutofillCore", "AutofillABI", "AutofillWire", "AutofillSystem", "CAutofillProvider", "CFFI", "CAutofillSandbox",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "AutofillHost",
            dependencies: [
                "AutofillProviderRuntime", "AutofillSystem", "AutofillCore", "AutofillABI", "AutofillMatching", "AutofillStore", "AutofillWebAuthn", "CAutofillProvider", "CFFI", "CPAM",
                "CAutofillSandbox", "CAutofillSessionBus", "AutofillWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "AutofillProviderKit", dependencies: ["AutofillCore", "AutofillABI", "CAutofillProvider"]),
        .target(name: "AutofillCompanion", dependencies: ["AutofillCore", "AutofillStore"]),
        .target(name: "AutofillOTP", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "AutofillWebAuthn", dependencies: ["AutofillCore", .product(name: "Crypto", package: "swift-crypto")]),
        // The clients are linked statically, Swift runtime and libc: they start like /bin/true (no loader,
        // no relocations), not like a program loading 15 shared objects (docs/PERFORMANCE.md). lld: gold
        // warns about the runtime's optional dlopen, which a static libc cannot use. git runs
        // git-credential-autofill for every credential it needs: the same client, so linked the same way.
        // The functions a fill runs are placed together (Sources/autofill/startup.order says how).
        .executableTarget(
            name: "autofill", dependencies: ["AutofillWire"], exclude: ["startup.order"],
            linkerSettings: clientLinking
        ),
        .executableTarget(
            name: "git-credential-autofill", dependencies: ["AutofillWire"],
            linkerSettings: clientLinking
        ),
        .executableTarget(name: "autofill-browser-host", dependencies: ["AutofillWire", "AutofillSystem", "AutofillMatching"]),
        .executableTarget(
            name: "autofill-cli",
            dependencies: [
                "AutofillHost", "AutofillSystem", "AutofillCore", "AutofillWire", "AutofillABI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "autofill-provider-helper", dependencies: ["AutofillProviderRuntime"]),
        .executableTarget(
            name: "autofill-bench",
            dependencies: ["AutofillHost", "AutofillStore", "AutofillMatching", "AutofillCore"],
            path: "Benchmarks/autofill-bench"
        ),
        .executableTarget(
            name: "kdbx-fuzz",
            dependencies: ["KDBX", "AutofillTestSupport", "CZlib", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/kdbx-fuzz"
        ),
        .target(
            name: "VaultCore",
            dependencies: [
                "AutofillCore", "AutofillOTP", "AutofillWebAuthn", "AutofillSystem", "CArgon2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Plugins/VaultProvider/VaultCore"
        ),
        .target(
            name: "VaultProvider", dependencies: ["AutofillProviderKit", "VaultCore", "AutofillWebAuthn", "AutofillSystem"],
            path: "Plugins/VaultProvider/Provider"
        ),
        .executableTarget(
            name: "autofill-vault",
            dependencies: [
                "VaultCore", "AutofillCompanion", "AutofillSystem", "AutofillWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Plugins/VaultProvider/Companion"
        ),
        .target(
            name: "AuthenticatorProvider", dependencies: ["AutofillProviderKit", "AutofillOTP", "AutofillSystem"],
            path: "Plugins/AuthenticatorProvider", exclude: ["Info.plist"]
        ),
        .target(
            name: "KDBX",
            dependencies: ["AutofillCore", "AutofillSystem", "CArgon2", "CGcrypt", "CZlib", "CLibXML2", .product(name: "Crypto", package: "swift-crypto")],
            path: "Plugins/KeePassProvider/KDBX"
        ),
        .target(
            name: "KeePassProvider",
            dependencies: [
                "AutofillProviderKit", "AutofillOTP", "AutofillWebAuthn", "KDBX", "VaultCore",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Plugins/KeePassProvider/Provider"
        ),
        .target(name: "AutofillTestSupport", path: "Tests/AutofillTestSupport"),
        .testTarget(name: "AutofillCoreTests", dependencies: ["AutofillCore", "AutofillTestSupport"]),
        .testTarget(name: "AutofillSystemTests", dependencies: ["AutofillSystem", "AutofillTestSupport"]),
        .testTarget(name: "AutofillOTPTests", dependencies: ["AutofillOTP", "AutofillTestSupport"]),
        .testTarget(
            name: "AutofillWebAuthnTests",
            dependencies: ["AutofillWebAuthn", "AutofillCore", "AutofillTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["fido2_check.py"]
        ),
        .testTarget(
            name: "VaultTests",
            dependencies: [
                "VaultCore", "AutofillCore", "AutofillStore", "AutofillCompanion", "AutofillTestSupport", "AutofillWebAuthn",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "KDBXTests", dependencies: ["KDBX", "AutofillCore", "AutofillTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Support"]
        ),
        .testTarget(name: "AutofillMatchingTests", dependencies: ["AutofillMatching", "AutofillCore"]),
        .testTarget(name: "AutofillStoreTests", dependencies: ["AutofillStore", "AutofillMatching", "AutofillCore", "AutofillCompanion", "AutofillTestSupport"]),
        .testTarget(
            name: "AutofillHostTests",
            dependencies: [
                "AutofillHost", "AutofillProviderRuntime", "AutofillCore", "AutofillABI", "CAutofillProvider", "AutofillTestSupport", "AutofillWebAuthn", "AutofillWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Fixtures", "Fuzz"]
        ),
        .testTarget(name: "autofillCLITests", dependencies: ["AutofillCore", "AutofillStore", "AutofillHost", "AutofillTestSupport"], exclude: ["Snapshots", "Support/relying_party.py", "Support/git_http_server.py", "Support/browser_driver.py", "Support/browser_passkeys.py", "Support/browser_pam.py", "Support/firefox_driver.py"]),
    ]
)

for target in package.targets where target.type != .system && target.type != .binary {
    if target.name.hasPrefix("C") { continue }  // C targets take no Swift settings
    target.swiftSettings = (target.swiftSettings ?? []) + strictSwift
}
