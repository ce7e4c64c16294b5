import AutofillCore
import Testing
@testable import VaultCore

/// Services as users type them, and the order of lists.
struct ServiceInputTests {
    @Test(arguments: [
        ("example.com", ServiceIdentifier(identifier: "example.com", type: .domain)),
        ("  Example.COM. ", ServiceIdentifier(identifier: "example.com", type: .domain)),
        ("https://accounts.example.org/login", ServiceIdentifier(identifier: "https://accounts.example.org/login", type: .url)),
        ("HTTP://example.net", ServiceIdentifier(identifier: "HTTP://example.net", type: .url)),
    ])
    func servicesParse(_ text: String, _ expected: ServiceIdentifier) throws {
        #expect(try ServiceInput.parse(text) == expected)
    }

    @Test(arguments: ["", "  ", "ftp://example.com", "https://", "example.com/login", "user@example.com", "exa mple.com"])
    func badServicesAreRefused(_ text: String) {
        #expect(throws: VaultError.self) { try ServiceInput.parse(text) }
    }

    @Test func hostsComeOutOfURLs() {
        #expect(ServiceInput.host(of: "https://user@WWW.Example.com:8443/x?y#z") == "www.example.com")
        #expect(ServiceInput.host(of: "example.com.") == "example.com")
        #expect(ServiceInput.host(of: "https://[::1]:8080/") == "[::1]")
    }

    @Test func listsPutTheSameHostFirstThenRelatedSites() {
        let requested = [ServiceIdentifier(identifier: "https://accounts.example.org/login", type: .url),
                         ServiceIdentifier(identifier: "example.org", type: .domain)]
        let services = ["other.test", "example.org", "https://accounts.example.org/x", "mail.example.org", "zzz.test"]
            .map { ServiceIdentifier(identifier: $0, type: $0.contains("://") ? .url : .domain) }
        let ordered = ServiceInput.ordered(services, by: { $0 }, for: requested).map(\.identifier)
        #expect(ordered == ["example.org", "https://accounts.example.org/x", "mail.example.org", "other.test", "zzz.test"])
    }
}
