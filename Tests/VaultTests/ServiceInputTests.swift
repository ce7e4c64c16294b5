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
        #expect(try ServiceInput.parse(text) == ServiceInput.Parsed(service: expected, removedUserInfo: nil))
    }

    @Test(arguments: [
        "", "  ", "ftp://example.com", "https://", "example.com/login", "user@example.com", "exa mple.com",
        "https://example.com:80a/", "https://example.com\\@evil.test/",
    ])
    func badServicesAreRefused(_ text: String) {
        #expect(throws: VaultError.self) { try ServiceInput.parse(text) }
    }

    @Test(arguments: [
        ("https://alice:hunter2@example.com/login", "https://example.com/login", ServiceInput.Parsed.RemovedUserInfo.userAndPassword),
        ("HTTP://alice:p@ss:w0rd@Example.com:8443", "HTTP://Example.com:8443", .userAndPassword),
        ("https://alice:my pass@example.com/", "https://example.com/", .userAndPassword),
        ("https://alice:@example.com", "https://example.com", .userAndPassword),
        ("https://alice@example.com/a@b", "https://example.com/a@b", .user),
        ("https://example.com/@alice?x=a@b#c@d", nil, nil),
    ])
    func userInformationIsRemovedFromURLs(_ text: String, _ stored: String?, _ removed: ServiceInput.Parsed.RemovedUserInfo?) throws {
        let parsed = try ServiceInput.parse(text)
        #expect(parsed.service == ServiceIdentifier(identifier: stored ?? text, type: .url))
        #expect(parsed.removedUserInfo == removed)
        let warning = parsed.warning(naming: "url")
        #expect((warning == nil) == (removed == nil))
        #expect(warning.map { !$0.contains("alice") && !$0.contains("hunter2") && !$0.contains("p@ss") } ?? true)
    }

    @Test(arguments: [
        "ftp://alice:hunter2@example.com", "https://alice:hunter2@exa mple.com/", "https://alice:hunter2@", "alice:hunter2@example.com",
        "hunter2 example.com", "https://alice:hunter2/x@example.com", "https://alice:hunter2#x@example.com",
        "https://alice:hunter2@example.com\\x",
    ])
    func errorsNameTheProblemNeverTheText(_ text: String) {
        do {
            _ = try ServiceInput.parse(text, naming: "login_uri")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.message.hasPrefix("login_uri "), "\(error.message)")
            #expect(!error.message.contains("hunter2") && !error.message.contains("alice"), "\(error.message)")
        }
    }

    @Test func theSchemeIsNamedWhenItIsOne() throws {
        #expect(throws: VaultError(.invalidInput, "the service is not a web address (androidapp://, not http:// or https://): give a domain like example.com or a URL like https://example.com/login")) {
            try ServiceInput.parse("androidapp://com.example.app")
        }
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
