import AutofillCore
import Testing

/// Service identifiers describe themselves with their type, and keep Apple's type names.
struct ServiceIdentifierTests {
    @Test(arguments: [
        (ServiceIdentifier(identifier: "example.com", type: .domain), "domain:example.com"),
        (ServiceIdentifier(identifier: "https://example.com/login", type: .url), "URL:https://example.com/login"),
        (ServiceIdentifier(identifier: "", type: .domain), "domain:"),
    ])
    func theDescriptionIsTheTypeAndTheIdentifier(_ service: ServiceIdentifier, _ expected: String) {
        #expect(service.description == expected)
    }

    @Test func theTypesUseApplesNames() {
        #expect(ServiceIdentifier.IdentifierType.allCases.map(\.rawValue) == ["domain", "URL"])
    }

    @Test func identifiersOfDifferentTypesDiffer() {
        #expect(ServiceIdentifier(identifier: "example.com", type: .domain)
            != ServiceIdentifier(identifier: "example.com", type: .url))
    }
}
