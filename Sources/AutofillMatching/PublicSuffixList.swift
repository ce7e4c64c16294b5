internal import CPSL

/// The public suffix list (libpsl): which domains are registrable, which are public suffixes.
///
/// Uses both the ICANN and the private section (so `github.io` is a public suffix), and the
/// implicit "*" rule (an unlisted top-level label such as `intranet` is a public suffix). libpsl's
/// context is immutable after loading and safe for concurrent reads.
public final class PublicSuffixList: Sendable {
    /// The newest of libpsl's built-in list and the system's `/usr/share/publicsuffix` data
    /// (`psl_latest(NULL)`), or the built-in list when that fails. Created once, never freed.
    public static let shared: PublicSuffixList = {
        if let latest = psl_latest(nil) { return PublicSuffixList(context: latest, owned: true) }
        return PublicSuffixList(context: psl_builtin(), owned: false)
    }()

    /// libpsl's `psl_ctx_t *`; nil only if libpsl has no data at all (then nothing is registrable
    /// and nothing is a public suffix).
    nonisolated(unsafe) private let context: OpaquePointer?
    private let owned: Bool

    private init(context: OpaquePointer?, owned: Bool) {
        self.context = context
        self.owned = owned
    }

    /// Loads a list from a file (`public_suffix_list.dat` text or libpsl's DAFSA form); nil when
    /// it cannot be read.
    public convenience init?(contentsOfFile path: String) {
        guard let context = psl_load_file(path) else { return nil }
        self.init(context: context, owned: true)
    }

    deinit {
        if owned { psl_free(context) }
    }

    /// The registrable domain ("eTLD+1") of an ASCII host: `example.co.uk` for `a.b.example.co.uk`.
    /// nil when the host is a public suffix itself or has none. Upper-case letters are folded.
    public func registrableDomain(_ host: String) -> String? {
        guard let context, !host.isEmpty else { return nil }
        return Self.folded(host).withCString { text in
            psl_registrable_domain(context, text).map { String(cString: $0) }
        }
    }

    /// Whether an ASCII host is a public suffix (`com`, `co.uk`, `github.io`, or an unlisted
    /// top-level label). Upper-case letters are folded.
    public func isPublicSuffix(_ host: String) -> Bool {
        guard let context, !host.isEmpty else { return false }
        return Self.folded(host).withCString { psl_is_public_suffix(context, $0) != 0 }
    }

    private static func folded(_ host: String) -> String {
        host.utf8.contains(where: ASCII.isUpper) ? ASCII.loweredString(host.utf8) : host
    }
}
