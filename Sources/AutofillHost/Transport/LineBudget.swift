/// How many lines a provider may put in front of the user: the first ``maximum`` are kept, the rest
/// counted, so a chatty or hostile provider can neither flood the user's terminal nor the log.
///
/// Used for both ways a provider writes lines: `af_host_services.log` (``ProviderSession``: a budget
/// per request, of the lines its client would see, ``linesPerRequest``) and, in a helper process,
/// what the plugin prints to stdout and stderr (``HelperOutputLog``: a budget per helper,
/// ``outputLinesPerHelper``). The owner reports the count of dropped lines once, with
/// ``takeDropped()``, when the request ends or the helper does.
struct LineBudget {
    /// A provider's log lines one request shows its client (docs/WRITING_A_PROVIDER.md).
    static let linesPerRequest = 20
    /// Lines of a helper's stdout and stderr kept in the log.
    static let outputLinesPerHelper = 1000

    /// The lines kept.
    let maximum: Int
    private var kept = 0
    private var dropped = 0

    /// A budget of `maximum` lines.
    init(maximum: Int = LineBudget.linesPerRequest) {
        self.maximum = maximum
    }

    /// Counts one line; false when it is over the budget and must be dropped.
    mutating func admit() -> Bool {
        guard kept < maximum else {
            dropped += 1
            return false
        }
        kept += 1
        return true
    }

    /// How many lines were dropped since the last call; resets the count.
    mutating func takeDropped() -> Int {
        defer { dropped = 0 }
        return dropped
    }

    /// "… 812 more lines from KeePassXC suppressed (…)": `count` dropped lines of `what` ("lines",
    /// "lines of its output") from `provider`, past `maximum`.
    static func droppedMessage(_ count: Int, _ what: String, from provider: String, maximum: Int) -> String {
        "… \(count) more \(what) from \(provider) suppressed (a provider's first \(maximum) are shown)"
    }
}
