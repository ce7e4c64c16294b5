public import AutofillCore
internal import CPAM
internal import Glibc

/// The `pam` policy: authenticates the current Linux user through PAM (user verification).
///
/// PAM's questions (usually the password) are asked on the controlling terminal (``HostPrompts``),
/// or in the browser's prompt window (``ChannelHostPrompts``), never from a UI script. A service that asks nothing (`pam_permit`) vouches for the user by
/// itself: choosing one is choosing unattended use, as `none` is. `configurationDirectory` uses
/// `pam_start_confdir` (Linux-PAM ≥ 1.4), so tests and special setups need no change to `/etc/pam.d`.
public struct PAMUserAuthentication: UserAuthenticator {
    /// The PAM service name (a file in the PAM configuration directory).
    public let service: String
    /// A PAM configuration directory instead of `/etc/pam.d`, or nil.
    public let configurationDirectory: String?
    let ui: any ProviderUserInterface

    public init(service: String, configurationDirectory: String?, ui: any ProviderUserInterface) {
        self.service = service
        self.configurationDirectory = configurationDirectory
        self.ui = ui
    }

    public var required: AuthenticationLevel { .verification }

    /// The name of the user running autofill.
    static var currentUser: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "\(getuid())" }
        return String(cString: name)
    }

    public func authenticate(reason: String) throws(AuthenticationFailure) -> UserAuthentication {
        let user = Self.currentUser
        let conversation = Conversation(ui: ui, reason: reason)
        let box = Unmanaged.passRetained(conversation)
        defer { box.release() }
        var callbacks = pam_conv(conv: { count, messages, responses, appData in
            guard let appData, let messages, let responses, count > 0 else { return PAM_CONV_ERR }
            let conversation = Unmanaged<Conversation>.fromOpaque(appData).takeUnretainedValue()
            return conversation.answer(count: Int(count), messages: messages, responses: responses)
        }, appdata_ptr: box.toOpaque())
        var handle: OpaquePointer?
        let started = pam_start_confdir(service, user, &callbacks, configurationDirectory, &handle)
        guard started == PAM_SUCCESS, let handle else {
            throw .unavailable("PAM could not start service \(service) (\(started)); check the PAM configuration")
        }
        var status = pam_authenticate(handle, 0)
        if status == PAM_SUCCESS { status = pam_acct_mgmt(handle, 0) }
        let message = String(cString: pam_strerror(handle, status))
        pam_end(handle, status)
        if status == PAM_SUCCESS {
            return UserAuthentication(method: .pam, userPresent: true, userVerified: true)
        }
        if let stop = conversation.stopped { throw stop }
        throw .denied("PAM refused \(user) for service \(service): \(message)")
    }

    /// PAM's conversation: each message becomes a UI request.
    final class Conversation: @unchecked Sendable {
        // @unchecked: used only on the thread running pam_authenticate, which calls back synchronously.
        let ui: any ProviderUserInterface
        let reason: String
        var stopped: AuthenticationFailure?

        init(ui: any ProviderUserInterface, reason: String) {
            self.ui = ui
            self.reason = reason
        }

        func answer(count: Int, messages: UnsafeMutablePointer<UnsafePointer<pam_message>?>,
                    responses: UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>) -> Int32 {
            guard let replies = calloc(count, MemoryLayout<pam_response>.stride)?.assumingMemoryBound(to: pam_response.self) else {
                return PAM_BUF_ERR
            }
            for index in 0..<count {
                guard let message = messages[index] else { continue }
                let text = message.pointee.msg.map { String(cString: $0) } ?? ""
                do {
                    switch message.pointee.msg_style {
                    case PAM_PROMPT_ECHO_OFF, PAM_PROMPT_ECHO_ON:
                        let secret = message.pointee.msg_style == PAM_PROMPT_ECHO_OFF
                        let request = UserInterfaceRequest.prompt(title: "Authenticate to \(reason)", message: text.trimmed.trimmingColon,
                                                                  secret: secret, maxLength: 4096)
                        guard case .text(let answer) = try ui.present(request, providerName: "autofill") else { throw UserInterfaceError.canceled }
                        replies[index].resp = strdup(answer.revealed)
                    case PAM_ERROR_MSG, PAM_TEXT_INFO:
                        _ = try ui.present(.message(title: "Authentication", message: text), providerName: "autofill")
                    default:
                        break
                    }
                } catch UserInterfaceError.canceled {
                    stopped = .canceled
                } catch UserInterfaceError.unavailable(let why) {
                    stopped = .unavailable(why)
                } catch {
                    stopped = .unavailable("\(error)")
                }
                if stopped != nil {
                    for done in 0..<count {
                        if let reply = replies[done].resp {
                            explicit_bzero(reply, strlen(reply))
                            free(reply)
                        }
                    }
                    free(replies)
                    return PAM_CONV_ERR
                }
            }
            responses.pointee = replies
            return PAM_SUCCESS
        }
    }
}

extension String {
    /// "Password: " → "Password" (the UI adds its own colon).
    var trimmingColon: String { hasSuffix(":") ? String(dropLast()) : self }
}
