internal import CAutofillSandbox

/// The host's own share of the sandbox (docs/SANDBOX.md): `PR_SET_DUMPABLE 0`, so no process of
/// the user that is not root can ptrace the host, read its memory through /proc or make it dump
/// core while it holds a filled password; and `PR_SET_NO_NEW_PRIVS`, so nothing the host runs can
/// gain privileges, except when the configuration's policy is `pam`: PAM's `pam_unix` checks a
/// password through the setgid helper `unix_chkpwd`, which no_new_privs would break.
public enum HostHardening {
    /// Applies both to this process. Call once the configuration is known, before any provider runs.
    public static func apply(configuration: HostConfiguration) {
        // The agent serves every configuration: it is made non-dumpable once when it starts (the
        // agent's own hardening) and never sets no_new_privs, which a PAM policy would need unset.
        guard !ClientContext.current.isAgentRequest else { return }
        let usesPAM = configuration.userAuthentication?.policy == .pam
        _ = afs_harden_host(usesPAM ? 0 : 1)
    }
}
