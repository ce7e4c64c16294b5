import AutofillCore
@testable import AutofillHost
import Testing

/// What a provider's UI establishes, as the router measures it: a secret answered is verification,
/// a person's answer is presence, a UI script's answer is not presence, an empty secret is nothing.
struct RecordingUserInterfaceTests {
    /// A UI that answers every request with `answer`, as a person or not.
    struct Answering: ProviderUserInterface {
        let answer: UserInterfaceAnswer
        let answersComeFromAPerson: Bool
        func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer { answer }
    }

    static let secretPrompt = UserInterfaceRequest.prompt(title: "Unlock", message: "Master password", secret: true, maxLength: 64)
    static let choice = UserInterfaceRequest.choose(title: "Choose", items: ["a", "b"])

    @Test(arguments: [
        (secretPrompt, UserInterfaceAnswer.text(Secret("hunter2")), true, true, true),
        (secretPrompt, .text(Secret("hunter2")), false, false, true),
        (secretPrompt, .text(Secret("")), true, true, false),
        (secretPrompt, .text(Secret("")), false, false, false),
        (choice, .choice(1), true, true, false),
        (choice, .choice(1), false, false, false),
    ])
    func answersEstablishOnlyWhatTheyProve(request: UserInterfaceRequest, answer: UserInterfaceAnswer, person: Bool,
                                           present: Bool, verified: Bool) throws {
        let ui = RecordingUserInterface(Answering(answer: answer, answersComeFromAPerson: person))
        #expect(ui.established == nil, "nothing answered yet")
        _ = try ui.present(request, providerName: "Fixture")
        #expect(ui.established == UserAuthentication(method: .provider, userPresent: present, userVerified: verified))
        ui.reset()
        #expect(ui.established == nil)
    }
}
