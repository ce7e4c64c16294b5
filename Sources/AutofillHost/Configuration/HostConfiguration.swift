public import AutofillCore
internal import FoundationEssentials

/// The `UserAuthentication` dictionary of the host configuration.
public struct UserAuthenticationSettings: Codable, Equatable, Sendable {
    /// The policy: `pam` (user verification through PAM), `confirm` (a yes/no on the terminal, user
    /// presence only) or `none` (no authentication; for scripts, see the README's warning).
    public enum Policy: String, Codable, Sendable, CaseIterable {
        case pam, confirm, none

        /// Decodes the policy's name; another word is an error naming the valid ones.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let name = try container.decode(String.self)
            guard let policy = Policy(rawValue: name) else {
                let valid = Self.allCases.map(\.rawValue).joined(separator: ", ")
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(DisplayText.line(name, limit: 40))\" is not a policy; write one of \(valid) (docs/CONFIGURATION.md)")
            }
            self = policy
        }
    }

    public var policy: Policy
    /// The PAM service name for `pam`; default `autofill` (falls back to PAM's `other` if absent).
    public var pamService: String?
    /// A PAM configuration directory instead of `/etc/pam.d` (relative to the configuration file).
    public var pamConfigurationDirectory: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case policy = "Policy"
        case pamService = "PAMService"
        case pamConfigurationDirectory = "PAMConfigurationDirectory"
    }

    public init(policy: Policy, pamService: String? = nil, pamConfigurationDirectory: String? = nil) {
        self.policy = policy
        self.pamService = pamService
        self.pamConfigurationDirectory = pamConfigurationDirectory
    }

    /// The PAM service when the settings name none.
    public static let defaultPAMService = "autofill"

    /// The authenticator these settings ask for; `pamConfigurationDirectory` must be absolute
    /// (``ConfigurationFile/authenticationSettings`` makes it so). `ui` must be the controlling
    /// terminal (``HostPrompts``), never a UI script.
    public func authenticator(ui: any ProviderUserInterface) -> any UserAuthenticator {
        switch policy {
        case .none: NoUserAuthentication()
        case .confirm: ConfirmUserAuthentication(ui: ui)
        case .pam: PAMUserAuthentication(service: pamService ?? Self.defaultPAMService, configurationDirectory: pamConfigurationDirectory, ui: ui)
        }
    }
}

/// The host configuration: where plugins are, which providers are enabled in the user's order,
/// and each provider's settings. Stored as a property list (see docs/CONFIGURATION.md).
public struct HostConfiguration: Codable, Equatable, Sendable {
    /// At most this many providers may be enabled at once (as on Apple platforms).
    public static let maximumEnabledProviders = 3
    /// The no-UI deadline when the configuration sets none (Apple's 3 seconds).
    public static let defaultNoUIDeadline: Duration = .seconds(3)
    /// How long a UI request may sit idle when the configuration sets nothing (docs/CONFIGURATION.md says why 30 s).
    public static let defaultUIIdleTimeout: Duration = .seconds(30)

    /// Folders searched for `*.afprovider` bundles; relative paths are relative to the configuration file.
    public var pluginSearchPaths: [String]
    /// Enabled provider ids, in the user's order (most preferred first).
    public var enabledProviders: [String]
    /// Settings per provider id, handed to that provider only. Values starting with `./`, `../` or
    /// `~/` are paths, resolved against the configuration file's folder or the home folder.
    public var providerSettings: [String: [String: String]]
    /// Seconds a provider gets to answer a no-UI request.
    public var noUIDeadlineSeconds: Double?
    /// Seconds a UI request may sit idle (its entry point returned, no UI showing) before the host gives up.
    public var uiIdleTimeoutSeconds: Double?
    /// How the host authenticates the user after a provider answered without UI.
    public var userAuthentication: UserAuthenticationSettings?
    /// The folder of the identity stores; default `$XDG_DATA_HOME/autofill/stores`. Relative paths are
    /// relative to the configuration file. Give a test or throwaway configuration its own.
    public var identityStoreDirectory: String?
    /// When repeated faults quarantine a provider (`Quarantine`: `FaultCount`, `WindowMinutes`; defaults 3 and 10).
    public var quarantine: QuarantineSettings?
    /// How providers run: in helper processes (the default) or in process (docs/CONFIGURATION.md).
    public var providerIsolation: ProviderIsolationSettings?
    /// Seconds the agent stays without a request before it exits, and its providers' unlocked state
    /// with it (docs/AGENT.md); default 900.
    public var agentIdleTimeoutSeconds: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pluginSearchPaths = "PluginSearchPaths"
        case enabledProviders = "EnabledProviders"
        case providerSettings = "ProviderSettings"
        case noUIDeadlineSeconds = "NoUIDeadlineSeconds"
        case uiIdleTimeoutSeconds = "UIIdleTimeoutSeconds"
        case identityStoreDirectory = "IdentityStoreDirectory"
        case userAuthentication = "UserAuthentication"
        case quarantine = "Quarantine"
        case providerIsolation = "ProviderIsolation"
        case agentIdleTimeoutSeconds = "AgentIdleTimeoutSeconds"
    }

    /// Creates a configuration.
    public init(
        pluginSearchPaths: [String] = [], enabledProviders: [String] = [],
        providerSettings: [String: [String: String]] = [:], noUIDeadlineSeconds: Double? = nil
    ) {
        self.pluginSearchPaths = pluginSearchPaths
        self.enabledProviders = enabledProviders
        self.providerSettings = providerSettings
        self.noUIDeadlineSeconds = noUIDeadlineSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pluginSearchPaths = try container.decodeIfPresent([String].self, forKey: .pluginSearchPaths) ?? []
        enabledProviders = try container.decodeIfPresent([String].self, forKey: .enabledProviders) ?? []
        providerSettings = try container.decodeIfPresent([String: [String: String]].self, forKey: .providerSettings) ?? [:]
        noUIDeadlineSeconds = try container.decodeIfPresent(Double.self, forKey: .noUIDeadlineSeconds)
        uiIdleTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .uiIdleTimeoutSeconds)
        identityStoreDirectory = try container.decodeIfPresent(String.self, forKey: .identityStoreDirectory)
        userAuthentication = try container.decodeIfPresent(UserAuthenticationSettings.self, forKey: .userAuthentication)
        quarantine = try container.decodeIfPresent(QuarantineSettings.self, forKey: .quarantine)
        providerIsolation = try container.decodeIfPresent(ProviderIsolationSettings.self, forKey: .providerIsolation)
        agentIdleTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .agentIdleTimeoutSeconds)
    }

    /// The no-UI deadline.
    public var noUIDeadline: Duration {
        noUIDeadlineSeconds.map { .milliseconds(Int64(($0 * 1000).rounded())) } ?? Self.defaultNoUIDeadline
    }

    /// The UI watchdog's idle time.
    public var uiIdleTimeout: Duration {
        uiIdleTimeoutSeconds.map { .milliseconds(Int64(($0 * 1000).rounded())) } ?? Self.defaultUIIdleTimeout
    }

    /// The agent's idle time (``agentIdleTimeoutSeconds``).
    public var agentIdleTimeout: Duration {
        agentIdleTimeoutSeconds.map { .milliseconds(Int64(($0 * 1000).rounded())) } ?? Self.defaultAgentIdleTimeout
    }

    /// The agent's idle time when the configuration gives none: 15 minutes.
    public static let defaultAgentIdleTimeout: Duration = .seconds(900)

    /// Problems that make the configuration unusable, as sentences.
    public func problems() -> [String] {
        var problems: [String] = []
        if enabledProviders.count > Self.maximumEnabledProviders {
            problems.append(
                "EnabledProviders lists \(enabledProviders.count) providers (\(enabledProviders.joined(separator: ", "))); at most \(Self.maximumEnabledProviders) may be enabled: remove the extra ones")
        }
        var seen = Set<String>()
        for id in enabledProviders where !seen.insert(id).inserted {
            problems.append("EnabledProviders lists \(id) twice: keep one")
        }
        if let seconds = noUIDeadlineSeconds, !(seconds > 0 && seconds <= 600) {
            problems.append("NoUIDeadlineSeconds is \(seconds); give a number of seconds above 0 and at most 600")
        }
        if let seconds = uiIdleTimeoutSeconds, !(seconds > 0 && seconds <= 3600) {
            problems.append("UIIdleTimeoutSeconds is \(seconds); give a number of seconds above 0 and at most 3600")
        }
        if let seconds = agentIdleTimeoutSeconds, !(seconds > 0 && seconds <= 86_400) {
            problems.append("AgentIdleTimeoutSeconds is \(seconds); give a number of seconds above 0 and at most 86400")
        }
        problems += quarantine?.problems() ?? []
        problems += providerIsolation?.problems() ?? []
        return problems
    }
}
