/// The user's authentication policy as the agent holds it: read once, from the user's own
/// configuration, when the agent starts (docs/AGENT.md, "Whose policy").
///
/// The agent serves every program that runs as the user, and each request names its own
/// configuration (`--config`, `$AUTOFILL_CONFIG`). Without this, a request naming a copy of the
/// user's file with `Policy none` got what the user had unlocked under `pam`. So a request's
/// configuration may name other providers and a stronger policy, never a weaker one
/// (``admit(_:)``), and ``ProviderPool`` refuses a provider to a request weaker than any it served.
///
/// Policies are ordered `none` < `confirm` < `pam` (the ``AuthenticationLevel`` each asks for).
/// Only the PAM service and folder of the user's configuration count as `pam`: a request that names
/// another service or folder may name one that accepts anyone (`pam_permit`), so the agent counts it
/// as `none`.
public struct AgentPolicy: Sendable, CustomStringConvertible {
    /// The user's settings (the PAM folder absolute).
    public let settings: UserAuthenticationSettings
    /// Where they came from, for messages ("your configuration /home/me/.config/autofill/config.plist").
    public let origin: String
    /// The user's configuration file they were read from (nil when there was none to read): the one
    /// file whose `AgentIdleTimeoutSeconds` sets the agent's idle time (``AgentServer/adoptIdleTimeout(from:)``).
    public let configurationPath: String?

    /// Holds `settings` (their PAM folder absolute), which came from `origin` (the file `configurationPath`).
    public init(settings: UserAuthenticationSettings, origin: String, configurationPath: String? = nil) {
        self.settings = settings
        self.origin = origin
        self.configurationPath = configurationPath
    }

    /// The user's policy, read from the agent's own environment as it starts: the user's file
    /// (`$XDG_CONFIG_HOME/autofill/config.plist`), or the built-in demo where that is the default.
    /// Never `$AUTOFILL_CONFIG`: that names one request's configuration (the first client's, which
    /// started the agent), not the user's. With no configuration at all, the default (`confirm`).
    /// A configuration that cannot be used holds `pam` through the default service (the safe side)
    /// and says why in `problem`.
    public static func load(environment: [String: String]) -> (policy: AgentPolicy, problem: String?) {
        var environment = environment
        environment["AUTOFILL_CONFIG"] = nil
        do {
            let file = try ConfigurationFile.locate(option: nil, environment: environment)
            let origin = file.source == .embeddedDefault ? "the built-in demo configuration \(file.path)" : "your configuration \(file.path)"
            return (AgentPolicy(settings: file.authenticationSettings, origin: origin, configurationPath: file.path), nil)
        } catch where error.code == .notFound {
            let path = ConfigurationFile.userPath(environment: environment)
            return (AgentPolicy(settings: UserAuthenticationSettings(policy: .confirm), origin: "the default (there is no configuration at \(path))"), nil)
        } catch {
            let path = ConfigurationFile.userPath(environment: environment)
            return (AgentPolicy(settings: UserAuthenticationSettings(policy: .pam), origin: "the safe default (your configuration \(path) cannot be used)"),
                    error.description)
        }
    }

    /// What the user's policy asks for.
    public var level: AuthenticationLevel { level(of: settings) }

    /// What `requested` asks for, as the agent counts it: `pam` through another PAM service or
    /// folder than the user's counts as nothing.
    public func level(of requested: UserAuthenticationSettings) -> AuthenticationLevel {
        switch requested.policy {
        case .none: .nothing
        case .confirm: .presence
        case .pam: pamStack(of: requested) == pamStack(of: settings) ? .verification : .nothing
        }
    }

    /// The level of `file`'s policy; refused (exit 77) when it is weaker than the user's.
    @discardableResult
    public func admit(_ file: ConfigurationFile) throws(AutofillError) -> AuthenticationLevel {
        let requested = file.authenticationSettings
        let asked = level(of: requested)
        guard asked >= level else {
            throw AutofillError(
                .refused,
                "the agent refuses this request: its configuration \(file.path) asks for \(describe(requested)); that is weaker than the policy the agent holds: \(self), from \(origin). A request may name a stronger policy, never a weaker one: use a configuration whose policy is at least \(settings.policy.rawValue), or --no-agent (nothing unlocked in the agent is reached then). A weaker policy in your configuration takes effect when the agent restarts (`autofill agent stop`), which locks every provider (docs/AGENT.md)")
        }
        return asked
    }

    /// The refusal of provider `id`, which served requests that asked for `served`, to a request
    /// whose configuration `file` asks for less.
    func refusal(of id: String, served: AuthenticationLevel, file: ConfigurationFile) -> AutofillError {
        AutofillError(
            .refused,
            "\(id) runs in the agent and has served requests under \(Self.policyName(served)); this request's configuration \(file.path) asks for \(describe(file.authenticationSettings)), which is weaker, so \(id) does not answer it. `autofill lock \(id)` ends it, and what it unlocked with it (docs/AGENT.md)")
    }

    public var description: String { describe(settings) }

    /// `settings` in words, saying when a `pam` counts as nothing.
    func describe(_ settings: UserAuthenticationSettings) -> String {
        guard settings.policy == .pam else { return settings.policy.rawValue }
        let (service, folder) = pamStack(of: settings)
        let stack = "pam (PAM service \(service) in \(folder))"
        guard level(of: settings) == .nothing else { return stack }
        return "\(stack), which counts as none (only the user's own PAM service counts as pam: another may accept anyone)"
    }

    /// The policy that asks for `level`.
    static func policyName(_ level: AuthenticationLevel) -> String {
        switch level {
        case .nothing: "none"
        case .presence: "confirm"
        case .verification: "pam"
        }
    }

    /// The PAM service and folder `settings` authenticate with (PAM's defaults filled in).
    private func pamStack(of settings: UserAuthenticationSettings) -> (service: String, folder: String) {
        (settings.pamService ?? UserAuthenticationSettings.defaultPAMService, settings.pamConfigurationDirectory ?? "/etc/pam.d")
    }
}
