import AutofillHost
import AutofillTestSupport
import AutofillWire
import Foundation
import Testing

/// The one table from what went wrong to the exit status (ExitStatus), and the one list of the
/// commands the agent runs (AgentRoute): scripts rely on the numbers, and the docs name both.
struct ExitStatusTests {
    static let root = FixturePlugin.repositoryRoot

    @Test func theStatusesAreTheDocumentedNumbers() {
        let numbers = Dictionary(uniqueKeysWithValues: ExitStatus.allCases.map { ("\($0)", $0.rawValue) })
        #expect(numbers == [
            "success": 0, "nothingToFill": 1, "agentNotRunning": 3, "canceled": 20, "userInterfaceUnavailable": 21,
            "authenticationFailed": 22, "declined": 23, "excludedCredential": 24, "usage": 64, "dataError": 65, "noInput": 66,
            "unavailable": 69, "software": 70, "ioError": 74, "temporaryFailure": 75, "refused": 77, "configuration": 78,
        ])
    }

    @Test func everyErrorMapsToItsStatus() {
        let codes: [AutofillError.Code: Int32] = [
            .usage: 64, .notFound: 66, .invalidPlugin: 65, .invalidData: 65, .temporaryFailure: 75, .configuration: 78,
            .io: 74, .providerUnavailable: 69, .internal: 70, .refused: 77,
        ]
        #expect(Set(codes.keys) == Set(AutofillError.Code.allCases), "every code is in the table")
        for (code, status) in codes {
            #expect(ExitStatus(code).rawValue == status, "\(code)")
            #expect(AutofillError(code, "x").exitStatus == status, "\(code)")
            #expect(ExitStatus(AutofillError(code, "x") as any Error)?.rawValue == status, "\(code)")
        }
        let failures: [(FillFailure, Int32)] = [
            (.nothingToFill(""), 1), (.canceled(""), 20), (.userInterfaceUnavailable(""), 21), (.authenticationFailed(""), 22),
            (.authenticationUnavailable(""), 21), (.providersFailed([]), 69), (.declined([]), 23), (.excludedCredential(""), 24),
            (.providersRefused([]), 77),
        ]
        for (failure, status) in failures {
            #expect(ExitStatus(failure).rawValue == status, "\(failure)")
        }
        // With a UI script, a UI that could not answer is a script that did not fit: bad input.
        #expect(ExitStatus(FillFailure.userInterfaceUnavailable(""), uiScripted: true) == .dataError)
        #expect(ExitStatus(FillFailure.authenticationUnavailable(""), uiScripted: true) == .userInterfaceUnavailable,
                "a UI script never answers the host's own authentication")
        #expect(ExitStatus(CocoaError(.fileNoSuchFile) as any Error) == nil, "other errors are not the table's")
    }

    @Test func docsCLIListsEveryStatusAndNoOther() throws {
        let text = try String(contentsOfFile: "\(Self.root)/docs/CLI.md", encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Exit statuses").dropFirst().first?.components(separatedBy: "\n## ").first)
        let listed = section.split(separator: "\n").compactMap { line -> Int32? in
            guard line.hasPrefix("| "), let number = line.dropFirst(2).split(separator: " ").first else { return nil }
            return Int32(number)
        }
        #expect(listed == ExitStatus.allCases.map(\.rawValue))
    }

    @Test func theDocsNameTheCommandsTheAgentRuns() throws {
        let starting = AgentRoute.startingCommands.map { "`\($0)`" }.joined(separator: ", ")
        for document in ["README.md", "docs/AGENT.md", "docs/CLI.md"] {
            let text = try String(contentsOfFile: "\(Self.root)/\(document)", encoding: .utf8)
            #expect(text.contains(starting), "\(document) names \(starting)")
        }
        for command in AgentRoute.startingCommands {
            #expect(AgentRoute([command], environment: [:])?.startsAgent == true, "\(command)")
        }
        for command in AgentRoute.joiningCommands {
            #expect(AgentRoute([command], environment: [:])?.startsAgent == false, "\(command)")
        }
        #expect(AgentRoute(["providers", "list"], environment: [:]) == nil)
    }
}
