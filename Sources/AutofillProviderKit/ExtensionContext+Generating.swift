public import AutofillCore

extension ExtensionContext {
    /// Answers a generate-password request with a password that honours its rules
    /// (``PasswordRules/generatePassword()``; the provider's defaults when the request has none), or
    /// cancels it with `.failed` and a reason naming the rules. What a provider's
    /// ``GeneratePasswordProviding/prepareInterface(forGeneratePasswordRequest:context:)`` can be,
    /// when it has no generator of its own; it needs no unlock: generating saves nothing. The host
    /// checks the password against the rules again.
    @discardableResult
    public func completeGeneratePasswordRequest(honouring request: GeneratePasswordRequest) -> CompletionResult {
        let rules: PasswordRules
        do {
            rules = try PasswordRules.parse(request.passwordRules ?? "")
        } catch {
            return cancelRequest(withError: ExtensionError(.failed, failureReason: "the password rules: \(error.message)"))
        }
        do {
            return completeGeneratePasswordRequest(with: try rules.generatePassword())
        } catch {
            return cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        }
    }
}
