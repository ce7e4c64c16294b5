import AutofillHost

/// The CLI's words for where the user could go on: the router says what happened
/// (``FillSituation``), these say which flag or command to use.
enum FlagAdvice {
    static let advice: FillAdvice = { situation in
        switch situation {
        case .otherSuggestionsNotTried: "pass --fallback to try the next suggestion automatically"
        case .pickOutOfRange(let count): "--pick takes 1 to \(count)"
        case .suggestionNotChosen: "run in a terminal, pass --ui-script, or pick with --pick N or --user NAME"
        case .providerNotChosen: "choose it with --provider ID"
        case .passkeyOutsideSignIn: "`autofill passkey get` makes one"
        case .noSuggestions(let kind, let site, let nameLabel):
            "`autofill fill --list \(kind == .oneTimeCode ? "--type otp " : "")\(site)` opens a provider's full list"
                + (nameLabel.map { "; " + nameSearchHint(command: "fill", label: $0) } ?? "")
        case .nothingNamed(let term): "`autofill suggest \(term)` searches the same way"
        }
    }

    /// How to search by name instead of by site (`label`: ``SearchTerm/nameSearchLabel``).
    static func nameSearchHint(command: String, label: String) -> String {
        "hint: to search by name, user or site instead, try `autofill \(command) \(label)` (or `autofill \(command) --name TERM`)"
    }
}
