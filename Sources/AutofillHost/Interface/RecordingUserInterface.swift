internal import AutofillCore
internal import Synchronization

/// Wraps the UI providers use and remembers, since the last ``reset()``, what it did: whether it had
/// to refuse a request as unavailable (so the router can tell "the provider needed UI and there was
/// none" from other failures), and what the answers it gave established about the user.
///
/// What counts: a secret prompt answered with something (a master password, typed or from a UI
/// script that knows it) is verification; any other answer is presence, and only when a person gave it at the
/// terminal. A list choice is never verification, and nothing a UI script answers is presence.
final class RecordingUserInterface: ProviderUserInterface {
    private struct Record {
        var refused: String?
        var present = false
        var verified = false
        var answered = 0
    }

    private let base: any ProviderUserInterface
    private let record = Mutex(Record())

    init(_ base: any ProviderUserInterface) {
        self.base = base
    }

    var answersComeFromAPerson: Bool { base.answersComeFromAPerson }

    /// Why the last request since `reset()` could not be shown, if one could not.
    var unavailableReason: String? { record.withLock { $0.refused } }

    /// What the answers since `reset()` established (method `provider`), or nil when nothing was
    /// answered at all.
    var established: UserAuthentication? {
        record.withLock { record in
            record.answered == 0 ? nil : UserAuthentication(method: .provider, userPresent: record.present, userVerified: record.verified)
        }
    }

    func reset() {
        record.withLock { $0 = Record() }
    }

    func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        do {
            let answer = try base.present(request, providerName: providerName)
            let person = base.answersComeFromAPerson
            record.withLock { record in
                record.answered += 1
                if person { record.present = true }
                // An empty answer proves no knowledge of anything (a "press Enter" dressed as a secret prompt).
                if case .prompt(_, _, true, _) = request, case .text(let typed) = answer, !typed.revealed.isEmpty { record.verified = true }
            }
            return answer
        } catch {
            if case .unavailable(let why) = error { record.withLock { $0.refused = why } }
            throw error
        }
    }
}
