import AutofillCore
import Testing

/// The errors a provider answers a request with: Apple's `ASExtensionError` codes and a
/// description that shows the name, the number and the provider's reason.
struct ExtensionErrorTests {
    static let codes: [(code: ExtensionError.Code, rawValue: Int32, name: String)] = [
        (.failed, 0, "failed"),
        (.userCanceled, 1, "userCanceled"),
        (.userInteractionRequired, 100, "userInteractionRequired"),
        (.credentialIdentityNotFound, 101, "credentialIdentityNotFound"),
        (.matchedExcludedCredential, 102, "matchedExcludedCredential"),
    ]

    @Test func theTableCoversEveryCodeOnce() {
        #expect(Self.codes.map(\.code) == ExtensionError.Code.allCases)
    }

    @Test(arguments: codes)
    func eachCodeHasApplesNumberAndName(_ row: (code: ExtensionError.Code, rawValue: Int32, name: String)) {
        #expect(row.code.rawValue == row.rawValue)
        #expect(ExtensionError.Code(rawValue: row.rawValue) == row.code)
        #expect(row.code.description == row.name)
    }

    @Test(arguments: [2, 99, 103, -1] as [Int32])
    func otherNumbersAreNoCode(_ rawValue: Int32) {
        #expect(ExtensionError.Code(rawValue: rawValue) == nil)
    }

    @Test func theCodesMatchTheAFErrorConstantsOfTheCHeader() throws {
        let header = try ProviderHeader.errorCodes()
        let expected = Dictionary(uniqueKeysWithValues: ExtensionError.Code.allCases.map { code in
            (Self.screamingSnakeCase(code.description), code.rawValue)
        })
        #expect(header == expected)
    }

    @Test(arguments: codes)
    func theDescriptionWithoutAReasonIsTheNameAndNumber(_ row: (code: ExtensionError.Code, rawValue: Int32, name: String)) {
        #expect(ExtensionError(row.code).description == "\(row.name) (\(row.rawValue))")
        #expect(ExtensionError(row.code, failureReason: "").description == "\(row.name) (\(row.rawValue))")
    }

    @Test func theDescriptionWithAReasonAppendsIt() {
        let error = ExtensionError(.userInteractionRequired, failureReason: "the vault is locked")
        #expect(error.description == "userInteractionRequired (100): the vault is locked")
        #expect("\(error)" == error.description)
    }

    @Test func aNewErrorHasNoReasonUnlessGivenOne() {
        #expect(ExtensionError(.failed).failureReason == nil)
        #expect(ExtensionError(.failed, failureReason: "disk full").failureReason == "disk full")
    }

    @Test func errorsAreEqualOnlyWithTheSameCodeAndReason() {
        #expect(ExtensionError(.userCanceled) == ExtensionError(.userCanceled))
        #expect(ExtensionError(.userCanceled) != ExtensionError(.failed))
        #expect(ExtensionError(.failed, failureReason: "a") != ExtensionError(.failed, failureReason: "b"))
        #expect(ExtensionError(.failed, failureReason: nil) != ExtensionError(.failed, failureReason: ""))
    }

    @Test func anExtensionErrorCanBeThrownAndCaught() {
        let error = #expect(throws: ExtensionError.self) {
            throw ExtensionError(.credentialIdentityNotFound, failureReason: "deleted")
        }
        #expect(error == ExtensionError(.credentialIdentityNotFound, failureReason: "deleted"))
    }

    /// `userInteractionRequired` → `USER_INTERACTION_REQUIRED`.
    static func screamingSnakeCase(_ camelCase: String) -> String {
        var result = ""
        for character in camelCase {
            if character.isUppercase { result += "_" }
            result += character.uppercased()
        }
        return result
    }
}
