/// Finding entries the way people name them: by id, or by site and user, and by words in their
/// names. Only names are looked at (ids, sites, users, labels, titles, relying parties), never a
/// secret or notes.
public struct EntryQuery: Sendable {
    /// The kinds an entry may be of, as users name them (`--kind`).
    public enum Kind: String, Sendable, CaseIterable {
        case password, otp, text, passkey

        /// Whether `entry` is of this kind.
        public func matches(_ entry: VaultEntry) -> Bool {
            switch (self, entry) {
            case (.password, .password), (.otp, .oneTimeCode), (.text, .text), (.passkey, .passkey): true
            default: false
            }
        }
    }

    /// An entry id, or a site (`github.com`, or a login's full URL), or a text's title.
    public var name: String
    /// The user name (a login's user, a code's label, a passkey's user name), when given.
    public var user: String?
    /// The kinds to consider (all when empty).
    public var kinds: Set<Kind>

    /// A query for `name`, narrowed by `user` and `kinds`.
    public init(_ name: String, user: String? = nil, kinds: Set<Kind> = []) {
        self.name = name
        self.user = user
        self.kinds = kinds
    }

    /// What a query found: one entry, none, or several to choose between.
    public enum Outcome: Sendable, Equatable {
        case found(VaultEntry)
        case none
        case ambiguous([VaultEntry])
    }

    /// The entry this query names in `contents`: the entry whose id is `name` (of a kind asked for);
    /// else the entries whose site is `name` (the whole service, or its host: `github.com` names
    /// `https://github.com/login`) or, for texts, whose title is, with `user` when given.
    public func resolve(in contents: VaultContents) -> Outcome {
        let considered = contents.entries.filter { entry in kinds.isEmpty || kinds.contains { $0.matches(entry) } }
        if let byID = considered.first(where: { $0.id == name }), user == nil || Self.user(of: byID) == user {
            return .found(byID)
        }
        let wanted = name.lowercased()
        let matches = considered.filter { entry in
            Self.sites(of: entry).contains(wanted) && (user == nil || Self.user(of: entry) == user)
        }
        switch matches.count {
        case 0: return .none
        case 1: return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    /// The entries any of whose names (id, site, user, label, title, relying party) contain `text`,
    /// ignoring case, in entry order.
    public static func search(_ text: String, in contents: VaultContents) -> [VaultEntry] {
        let wanted = text.lowercased()
        return contents.entries.filter { entry in
            ([entry.id, site(of: entry), user(of: entry)].compactMap { $0 }).contains { $0.lowercased().contains(wanted) }
        }
    }

    /// The site an entry is for, as stored: a login's or code's service, a passkey's relying party, a text's title.
    public static func site(of entry: VaultEntry) -> String? {
        switch entry {
        case .password(let login): login.service.identifier
        case .oneTimeCode(let code): code.service.identifier
        case .passkey(let passkey): passkey.relyingParty
        case .text(let text): text.title
        case .unknown: nil
        }
    }

    /// The user an entry is for: a login's user, a code's label, a passkey's user name (nil for texts).
    public static func user(of entry: VaultEntry) -> String? {
        switch entry {
        case .password(let login): login.user
        case .oneTimeCode(let code): code.label
        case .passkey(let passkey): passkey.userName
        case .text, .unknown: nil
        }
    }

    /// The lowercased names a site query matches: the site as stored and, for a URL, its host.
    private static func sites(of entry: VaultEntry) -> Set<String> {
        guard let site = site(of: entry) else { return [] }
        var names: Set<String> = [site.lowercased()]
        if case .text = entry { return names }
        if let host = ServiceInput.host(of: site) { names.insert(host.lowercased()) }
        return names
    }
}
