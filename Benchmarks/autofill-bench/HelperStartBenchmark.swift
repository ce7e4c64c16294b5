internal import AutofillCore
internal import AutofillHost
internal import Foundation
internal import Logging

/// Issue M's figures (`autofill-bench --helper-start [RUNS]`, docs/PERFORMANCE.md): what bubblewrap's
/// namespaces cost a helper, against the same sandbox without them (Landlock + seccomp alone), each
/// pair interleaved in the same run:
///
/// 1. starting a helper: spawn, handshake, sandbox and load of a fresh copy of the C Netrc sample
///    (`HelperConnection.launch`; aim: ≤ 15 ms more with namespaces); its first request is part of it;
/// 2. a warm fill: a no-UI request on a loaded provider (aim: unchanged; the sandbox is paid once).
struct HelperStartBenchmark {
    let bin: String
    let runs: Int

    private static let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

    func run() async throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-helper-start-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let runtime = "\(home)/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        setenv("HOME", home, 1)
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        setenv(HelperProtocol.executableEnvironmentKey, "\(bin)/\(HelperProtocol.executableName)", 1)
        let netrc = "\(home)/netrc/netrc"
        try FileManager.default.createDirectory(atPath: "\(home)/netrc", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Config/demo/netrc/netrc", toPath: netrc)
        let services = ProviderServices(store: InMemoryIdentityStore(), settings: ["NetrcFile": netrc], logger: Self.logger)
        let carol = PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "carol")
        let request = ProviderRequest.credentialWithoutUserInteraction(.password(carol))
        guard BubblewrapSupport.available else { throw BenchmarkError("this system lets autofill make no user namespaces (bubblewrap)") }

        func launch(namespaces: Bool) throws -> (connection: any ProviderConnection, started: Duration) {
            let bundle = "\(home)/copies/\(UUID().uuidString)/NetrcProvider.afprovider"
            try FileManager.default.createDirectory(atPath: (bundle as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "\(repositoryRoot)/.build/plugins/NetrcProvider.afprovider", toPath: bundle)
            var options = HelperOptions(sandbox: try IsolationBenchmark.sandbox(bundle: bundle, vault: netrc))
            options.namespaces = namespaces
            let clock = ContinuousClock()
            let start = clock.now
            let connection = try HelperConnection.launch(bundle: bundle, services: services, options: options)
            return (connection, clock.now - start)
        }

        progress("helper start: \(runs) launches each, with and without namespaces, interleaved")
        var plain: [Duration] = [], namespaced: [Duration] = []
        for _ in 0..<runs {
            plain.append(try launch(namespaces: false).started)  // released at once: its helper is stopped
            namespaced.append(try launch(namespaces: true).started)
        }
        progress("warm fill: \(runs * 5) requests each on a loaded helper, interleaved")
        let (a, b) = (try launch(namespaces: false).connection, try launch(namespaces: true).connection)
        for connection in [a, b] {
            for _ in 0..<20 {
                guard case .completed = await connection.send(request, deadline: .seconds(3)) else { throw BenchmarkError("Netrc did not answer") }
            }
        }
        var warmPlain: [Duration] = [], warmNamespaced: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<(runs * 5) {
            var start = clock.now
            _ = await a.send(request, deadline: .seconds(3))
            warmPlain.append(clock.now - start)
            start = clock.now
            _ = await b.send(request, deadline: .seconds(3))
            warmNamespaced.append(clock.now - start)
        }
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
        let (p, n, wp, wn) = (Samples(plain), Samples(namespaced), Samples(warmPlain), Samples(warmNamespaced))
        return [
            "Helper start (Netrc, C; spawn, handshake, sandbox, load; median  p99), \(runs) each, interleaved",
            "  Landlock + seccomp              \(ms(p.median))  \(ms(p.p99))",
            "  bubblewrap + Landlock + seccomp \(ms(n.median))  \(ms(n.p99))   namespaces add \(ms(n.median - p.median)) to the median (aim ≤ 15 ms)",
            "Warm fill (a no-UI request on a loaded helper; median  p99), \(runs * 5) each, interleaved",
            "  Landlock + seccomp              \(ms(wp.median))  \(ms(wp.p99))",
            "  bubblewrap + Landlock + seccomp \(ms(wn.median))  \(ms(wn.p99))   difference \(ms(wn.median - wp.median))",
        ].joined(separator: "\n")
    }
}
