internal import FoundationEssentials

/// How a provider runs: in a helper process of its own (the default) or inside the host.
public enum ProviderIsolation: String, Sendable, CaseIterable {
    /// A helper process per provider: a crash, hang or runaway allocation ends only the helper.
    case helperProcess
    /// `dlopen` into the host: fastest, for plugins the user trusts fully and benchmarks; a crash ends
    /// the host, and the plugin reaches everything the host can (no sandbox).
    case inProcess
    /// A helper process without the sandbox (docs/SANDBOX.md): only for a kernel without Landlock,
    /// named provider by provider, with a warning on every run.
    case unsandboxed
}

/// The `ProviderIsolation` dictionary of the host configuration: how providers run.
///
/// ```xml
/// <key>ProviderIsolation</key>
/// <dict>
///     <key>Default</key><string>helperProcess</string>          <!-- or inProcess -->
///     <key>Providers</key><dict><key>org.example.trusted</key><string>inProcess</string></dict>
///     <key>MemoryLimitMB</key><integer>1024</integer>           <!-- per helper; 0: none -->
///     <key>LoadDeadlineSeconds</key><real>10</real>
/// </dict>
/// ```
/// Values are kept as written and checked by ``HostConfiguration/problems()``, so an unknown mode
/// is refused with the key named.
public struct ProviderIsolationSettings: Codable, Equatable, Sendable {
    /// The mode of providers not listed in `providers`: `helperProcess` (the default) or `inProcess`.
    public var defaultMode: String?
    /// Provider id → mode, overriding the default.
    public var providers: [String: String]?
    /// The address-space ceiling of each helper, in megabytes; 0 for none.
    public var memoryLimitMB: Int?
    /// How long a helper may take to start and load its plugin.
    public var loadDeadlineSeconds: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case defaultMode = "Default"
        case providers = "Providers"
        case memoryLimitMB = "MemoryLimitMB"
        case loadDeadlineSeconds = "LoadDeadlineSeconds"
    }

    /// Creates settings.
    public init(defaultMode: ProviderIsolation? = nil, providers: [String: ProviderIsolation] = [:],
                memoryLimitMB: Int? = nil, loadDeadlineSeconds: Double? = nil) {
        self.defaultMode = defaultMode?.rawValue
        self.providers = providers.isEmpty ? nil : providers.mapValues(\.rawValue)
        self.memoryLimitMB = memoryLimitMB
        self.loadDeadlineSeconds = loadDeadlineSeconds
    }

    static let key = "ProviderIsolation"

    /// Problems as sentences naming the key.
    func problems() -> [String] {
        let names = ProviderIsolation.allCases.map(\.rawValue)
        let modes = names.dropLast().joined(separator: ", ") + " or " + names.last!
        var problems: [String] = []
        if let mode = defaultMode, ProviderIsolation(rawValue: mode) == nil {
            problems.append("\(Self.key).Default is \"\(mode)\"; use \(modes)")
        }
        for (id, mode) in (providers ?? [:]).sorted(by: { $0.key < $1.key }) where ProviderIsolation(rawValue: mode) == nil {
            problems.append("\(Self.key).Providers.\(id) is \"\(mode)\"; use \(modes)")
        }
        if let megabytes = memoryLimitMB, megabytes != 0 && !(64...1_048_576).contains(megabytes) {
            problems.append("\(Self.key).MemoryLimitMB is \(megabytes); give a number of megabytes from 64 to 1048576, or 0 for no limit")
        }
        if let seconds = loadDeadlineSeconds, !(seconds > 0 && seconds <= 600) {
            problems.append("\(Self.key).LoadDeadlineSeconds is \(seconds); give a number of seconds above 0 and at most 600")
        }
        return problems
    }
}

extension HostConfiguration {
    /// How provider `id` runs: its entry in `ProviderIsolation.Providers`, else `ProviderIsolation.Default`,
    /// else in a helper process.
    public func isolation(for id: String) -> ProviderIsolation {
        let settings = providerIsolation
        return (settings?.providers?[id] ?? settings?.defaultMode).flatMap(ProviderIsolation.init(rawValue:)) ?? .helperProcess
    }

    /// The limits helper processes run under.
    public var helperOptions: HelperOptions {
        var options = HelperOptions(memoryLimitMegabytes: providerIsolation?.memoryLimitMB ?? HelperOptions.defaultMemoryLimitMegabytes)
        if let seconds = providerIsolation?.loadDeadlineSeconds { options.loadDeadline = .milliseconds(Int64((seconds * 1000).rounded())) }
        return options
    }
}
