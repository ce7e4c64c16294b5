public import AutofillCore
internal import AutofillABI
internal import CAutofillProvider

/// What became of a completion: the host took it, or it was not the request's answer.
public enum CompletionResult: Equatable, Sendable {
    /// The host took the answer.
    case accepted
    /// The request was no longer pending (completed already, or the host gave up after its deadline).
    case notPending
    /// The host refused the answer (it does not fit the request, or breaks the ABI's rules); the reason says why.
    case refused(String)
}

/// One request's context (Apple's `ASCredentialProviderExtensionContext`): complete the request
/// exactly once, or cancel it; show UI through the host while a UI request is pending.
///
/// May be used from any thread; keep it until you answer.
public final class ExtensionContext: Sendable {
    /// The host's id for this request.
    public let requestID: UInt64
    /// The host, for logging and the identity store.
    public let host: ProviderHost

    init(requestID: UInt64, host: ProviderHost) {
        self.requestID = requestID
        self.host = host
    }

    private var table: af_host_services { host.services.table }

    // MARK: Completing

    /// Completes a password request or a credential list with a password.
    @discardableResult
    public func completeRequest(withSelectedCredential credential: PasswordCredential) -> CompletionResult {
        result(withStrings(credential.user, credential.password.revealed) { user, password in
            table.complete_password?(requestID, user.0, user.1, password.0, password.1)
        })
    }

    /// Completes a passkey assertion request.
    @discardableResult
    public func completeAssertionRequest(using credential: PasskeyAssertionCredential) -> CompletionResult {
        result(withCArena { arena in
            var assertion = arena.passkeyAssertion(credential)
            return table.complete_passkey_assertion?(requestID, &assertion)
        })
    }

    /// Completes a passkey registration request.
    @discardableResult
    public func completeRegistrationRequest(using credential: PasskeyRegistrationCredential) -> CompletionResult {
        result(withCArena { arena in
            var registration = arena.passkeyRegistration(credential)
            return table.complete_passkey_registration?(requestID, &registration)
        })
    }

    /// Completes a one-time-code request or list with a code.
    @discardableResult
    public func completeOneTimeCodeRequest(using code: Secret) -> CompletionResult {
        result(withStrings(code.revealed, "") { code, _ in table.complete_one_time_code?(requestID, code.0, code.1) })
    }

    /// Completes the text-to-insert request.
    @discardableResult
    public func completeRequest(withTextToInsert text: String) -> CompletionResult {
        result(withStrings(text, "") { text, _ in table.complete_text?(requestID, text.0, text.1) })
    }

    /// Completes the extension-configuration request.
    @discardableResult
    public func completeExtensionConfigurationRequest() -> CompletionResult {
        result(table.complete_configuration?(requestID))
    }

    /// Completes a save-password request (`completeSavePasswordRequest`).
    @discardableResult
    public func completeSavePasswordRequest() -> CompletionResult {
        result(table.complete_save_password?(requestID))
    }

    /// Completes a generate-password request with the password (`completeGeneratePasswordRequest(results:)`).
    @discardableResult
    public func completeGeneratePasswordRequest(with password: Secret) -> CompletionResult {
        result(withStrings(password.revealed, "") { password, _ in table.complete_generated_password?(requestID, password.0, password.1) })
    }

    /// Completes a credential-update report: applied, or nothing of it held.
    @discardableResult
    public func completeCredentialUpdate() -> CompletionResult {
        result(table.complete_credential_update?(requestID))
    }

    // MARK: Writing through the host

    /// Hands the host `contents` for the file `name` (relative, `/`-separated) in `folder`, a folder your
    /// plist declares with `add-files` Access (docs/SANDBOX.md): the host writes it (and commits it, with
    /// `GitCommit`). Only while this save or credential-update request is pending. `.accepted` when
    /// written; `.refused` with the host's reason (never the contents); `.notPending` otherwise.
    @discardableResult
    public func addFile(_ name: String, in folder: String, contents: [UInt8]) -> CompletionResult {
        let end = MemoryLayout<af_host_services>.offset(of: \af_host_services.add_file)! + MemoryLayout<UnsafeRawPointer>.size
        guard Int(table.size) >= end, let addFile = table.add_file else { return .refused("this host has no add_file service") }
        var reason = [CChar](repeating: 0, count: 1024)
        var length = 0
        let status = withStrings(folder, name) { folder, name in
            contents.withUnsafeBufferPointer { bytes in
                addFile(requestID, folder.0, folder.1, name.0, name.1, bytes.baseAddress, bytes.count, &reason, reason.count, &length)
            }
        }
        switch status {
        case AF_OK: return .accepted
        case AF_STATUS_UNKNOWN_REQUEST: return .notPending
        default: return .refused(String(decoding: reason.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Cancels the request after a UI call failed: `userCanceled` when the user cancelled, else a
    /// failure saying that `what` ("choosing a login") needs the host's UI.
    @discardableResult
    public func cancelRequest(after error: UserInterfaceError, doing what: String) -> CompletionResult {
        switch error {
        case .canceled: cancelRequest(withError: ExtensionError(.userCanceled))
        case .unavailable: cancelRequest(withError: ExtensionError(.failed, failureReason: "\(what) needs the host's UI"))
        }
    }

    /// Cancels the request because the provider's store could not be reached: `userInteractionRequired`
    /// when it is locked (the host asks again with the provider's UI), else the failure's error.
    @discardableResult
    public func cancelRequest(because access: StoreAccess) -> CompletionResult {
        switch access {
        case .locked: cancelRequest(withError: ExtensionError(.userInteractionRequired))
        case .failed(let error): cancelRequest(withError: error)
        }
    }

    /// Cancels the request with an `ASExtensionError` code and optional user-facing reason.
    @discardableResult
    public func cancelRequest(withError error: ExtensionError) -> CompletionResult {
        result(withStrings(error.failureReason ?? "", "") { reason, _ in
            table.cancel_request?(requestID, error.code.rawValue, reason.0, reason.1)
        })
    }

    // MARK: UI (rendered by the host)

    /// Asks for a line of text.
    public func prompt(title: String, message: String, maxLength: Int = 4096) throws(UserInterfaceError) -> String {
        try prompt(title: title, message: message, secret: false, maxLength: maxLength).revealed
    }

    /// Asks for a secret (not echoed), such as a master password.
    public func promptForSecret(title: String, message: String, maxLength: Int = 4096) throws(UserInterfaceError) -> Secret {
        try prompt(title: title, message: message, secret: true, maxLength: maxLength)
    }

    /// Lets the user choose one of `items`; returns its index.
    public func choose(title: String, items: [String]) throws(UserInterfaceError) -> Int {
        var chosen = 0
        let status = withCArena { arena in
            let titleText = arena.str(title)
            let list = arena.array(items.map { arena.str($0) })
            return table.ui_choose?(requestID, titleText.data, titleText.length, list, items.count, &chosen)
        }
        try checkUI(status)
        return chosen
    }

    /// Asks yes or no.
    public func confirm(title: String, message: String) throws(UserInterfaceError) -> Bool {
        var confirmed: Int32 = 0
        let status = withStrings(title, message) { title, message in
            table.ui_confirm?(requestID, title.0, title.1, message.0, message.1, &confirmed)
        }
        try checkUI(status)
        return confirmed != 0
    }

    /// Shows a message until the user acknowledges it.
    public func showMessage(title: String, message: String) throws(UserInterfaceError) {
        try checkUI(withStrings(title, message) { title, message in
            table.ui_message?(requestID, title.0, title.1, message.0, message.1)
        })
    }

    private func prompt(title: String, message: String, secret: Bool, maxLength: Int) throws(UserInterfaceError) -> Secret {
        var buffer = [UInt8](repeating: 0, count: max(1, maxLength))
        defer { for index in buffer.indices { buffer[index] = 0 } }
        var length = 0
        let flags = secret ? UInt32(AF_UI_PROMPT_SECRET) : 0
        let status = withStrings(title, message) { title, message in
            buffer.withUnsafeMutableBytes { raw in
                table.ui_prompt?(requestID, title.0, title.1, message.0, message.1, flags,
                                 raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, &length)
            }
        }
        try checkUI(status)
        return Secret(String(decoding: buffer.prefix(length), as: UTF8.self))
    }

    private func checkUI(_ status: af_status?) throws(UserInterfaceError) {
        switch status {
        case AF_OK: return
        case AF_STATUS_UI_CANCELED: throw .canceled
        default: throw .unavailable(ABIStatus(status ?? AF_STATUS_UI_UNAVAILABLE).description)
        }
    }

    private func result(_ status: af_status?) -> CompletionResult {
        switch status {
        case AF_OK: .accepted
        case AF_STATUS_UNKNOWN_REQUEST: .notPending
        default: .refused(ABIStatus(status ?? AF_STATUS_INVALID_ARGUMENT).description)
        }
    }

    /// Runs `body` with two strings as (pointer, length) pairs valid for the call.
    private func withStrings<R>(
        _ first: String, _ second: String,
        _ body: ((UnsafePointer<CChar>?, Int), (UnsafePointer<CChar>?, Int)) -> R
    ) -> R {
        var first = first
        var second = second
        return first.withUTF8 { a in
            second.withUTF8 { b in
                body((UnsafeRawPointer(a.baseAddress)?.assumingMemoryBound(to: CChar.self), a.count),
                     (UnsafeRawPointer(b.baseAddress)?.assumingMemoryBound(to: CChar.self), b.count))
            }
        }
    }
}
