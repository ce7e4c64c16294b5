import AutofillMatching
import Testing

/// Match qualities order best first and describe themselves for people.
struct MatchQualityTests {
    @Test func exactURLBeatsExactHostBeatsParentsBeatSameSite() {
        let ordered: [MatchQuality] = [
            .exactURL, .exactHost, .parentDomain(distance: 1), .parentDomain(distance: 2), .parentDomain(distance: 7),
            .sameRegistrableDomain,
        ]
        for (index, better) in ordered.enumerated() {
            for worse in ordered[(index + 1)...] {
                #expect(better < worse, "\(better) < \(worse)")
                #expect(!(worse < better), "not \(worse) < \(better)")
            }
        }
        #expect(ordered.reversed().sorted() == ordered)
    }

    @Test func aQualityIsNotBetterThanItself() {
        for quality: MatchQuality in [.exactURL, .exactHost, .parentDomain(distance: 3), .sameRegistrableDomain] {
            #expect(!(quality < quality))
        }
    }

    @Test(arguments: [
        (MatchQuality.exactURL, "exact URL"), (.exactHost, "exact host"), (.parentDomain(distance: 1), "parent domain, 1 level up"),
        (.parentDomain(distance: 2), "parent domain, 2 levels up"), (.sameRegistrableDomain, "same site"),
    ])
    func theDescriptionNamesTheQuality(_ quality: MatchQuality, _ text: String) {
        #expect(quality.description == text)
    }
}
