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
        case .noSuggestions(let kind, let site):
            "`autofill fill --list \(kind == .oneTimeCode ? "--type otp " : "")\(site)` opens a provider's full list"
        }
    }
}
