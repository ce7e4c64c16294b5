import AutofillCore
import AutofillMatching
import Testing

/// Every row of the table in docs/MATCHING.md, run through the real code.
struct MatchingTableTests {
    static let results: Set<String> = ["exact URL", "exact host", "same site", "no match", "query rejected"]

    @Test func theTableHasAtLeastFortyRows() {
        #expect(MatchingTable.rows.count >= 40, "read \(MatchingTable.rows.count) rows from \(MatchingTable.path)")
    }

    @Test func theRowsAreNumberedM1OnwardsWithoutGaps() {
        #expect(MatchingTable.rows.map(\.number) == MatchingTable.rows.indices.map { "M\($0 + 1)" })
    }

    @Test(arguments: MatchingTable.rows)
    func eachRowGivesItsResult(_ row: MatchingTableRow) {
        #expect(Self.results.contains(row.result) || row.result.hasPrefix("parent domain, "), "unknown result \(row.result)")
        #expect(!row.why.isEmpty)
        let query: ServiceQuery
        do {
            query = try ServiceQuery(row.query)
        } catch {
            #expect(row.result == "query rejected", "\(row.number): the query was rejected: \(error)")
            return
        }
        #expect(row.result != "query rejected", "\(row.number): the query parsed as \(query.name)")
        let actual = query.match(row.identity)?.description ?? "no match"
        #expect(actual == row.result, "\(row.number): \(row.why)")
    }
}
