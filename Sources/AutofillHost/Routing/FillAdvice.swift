public import AutofillCore

/// A place where the user could go on, for a client to say how in its own words: the router's
/// messages say what happened, and ``FillRouter/advice`` adds the client's way on (the CLI names its
/// flags; a client without one adds nothing).
public enum FillSituation: Sendable, Equatable {
    /// A suggestion failed and no other was tried: the caller asked for no fallback.
    case otherSuggestionsNotTried
    /// The pick named a position beyond the `count` suggestions.
    case pickOutOfRange(count: Int)
    /// There was no UI to choose a suggestion with.
    case suggestionNotChosen
    /// There was no UI to choose a provider with.
    case providerNotChosen
    /// A passkey suggestion came up outside a WebAuthn sign-in.
    case passkeyOutsideSignIn
    /// The stores hold no suggestion of `kind` for `site` (a provider's own list may have one; a
    /// search by name for `nameLabel` may find one).
    case noSuggestions(CredentialIdentity.Kind, site: String, nameLabel: String?)
    /// A search by name found nothing named `term`.
    case nothingNamed(String)
}

/// How a client advises the user in a situation (``FillSituation``): nil adds nothing.
public typealias FillAdvice = @Sendable (FillSituation) -> String?

extension FillRouter {
    /// `fact` (what happened), then the client's advice for `situation` after a semicolon, ending with
    /// `end`.
    func advised(_ fact: String, _ situation: FillSituation, end: String = ".") -> String {
        fact + (advice(situation).map { "; " + $0 } ?? "") + end
    }
}
