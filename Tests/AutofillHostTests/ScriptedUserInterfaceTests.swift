import AutofillCore
import AutofillHost
import AutofillTestSupport
import Foundation
import Testing

/// UI scripts (`--ui-script`): a comment is a line of its own, and an answer takes the rest of its line,
/// `#` included, since a master password may hold one.
struct ScriptedUserInterfaceTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("ui-script")
    }

    func script(_ text: String) throws -> ScriptedUserInterface {
        try ScriptedUserInterface(path: try folder.file("script-\(UUID().uuidString)", text))
    }

    static let secretPrompt = UserInterfaceRequest.prompt(title: "Unlock", message: "Master password", secret: true, maxLength: 4096)

    @Test func aSecretHoldingAHashIsAnsweredWhole() throws {
        let ui = try script("# the master password, on a line of its own\nsecret correct #horse battery # staple\n")
        guard case .text(let secret) = try ui.present(Self.secretPrompt, providerName: "Vault") else {
            Issue.record("no text answer")
            return
        }
        #expect(secret.revealed == "correct #horse battery # staple")
    }

    @Test func commentLinesAndBlankLinesAreSkipped() throws {
        let ui = try script("# first\n\n   # indented comment\nconfirm yes\n")
        #expect(try ui.present(.confirm(title: "t", message: "m"), providerName: "Vault") == .confirmed(true))
    }

    @Test func aCommentAfterAChoiceOrAYesNoIsRefusedSayingWhereCommentsGo() throws {
        for text in ["choose 2   # the second\n", "confirm yes # sure\n"] {
            #expect {
                _ = try script(text)
            } throws: { error in
                "\(error)".contains("a comment goes on a line of its own")
            }
        }
    }
}
