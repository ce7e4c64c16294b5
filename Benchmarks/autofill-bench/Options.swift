/// The benchmark's command line.
struct Options {
    var identities = 100_000
    var queries = 10_000
    var runs = 30
    var replaceRuns = 5
    var saves = 200
    var naiveQueries = 30
    var preparsedQueries = 300
    var seed: UInt64 = 20_250_601
    var json = false
    var jsonFile: String?
    var keep = false
    var temporaryParent: String?
    var autofill: String?
    var plugins: String?
    /// `--memory-probe CONFIG QUERIES`: the child mode of figure 5 (internal).
    var memoryProbe: (config: String, queries: String)?

    static let usage = """
        USAGE: autofill-bench [options]

        Builds three identity stores of --identities identities each in a temporary folder and measures
        suggestion queries (in-process and as `autofill suggest` processes), replace, save and memory,
        each against a peer measured in the same run. Prints a table, or JSON with --json.

        OPTIONS:
          --identities N        identities per provider (default 100000; three providers)
          --queries N           in-process suggestion queries (default 10000)
          --runs N              runs of each process (autofill suggest and its peers; default 30)
          --replace-runs N      replace(with:) runs (default 5)
          --saves N             single-identity saves (default 200)
          --naive-queries N     queries for the naive-scan peer (default 30; each scans every identity)
          --preparsed-queries N queries for the pre-parsed-scan peer (default 300)
          --seed N              random seed for the data and the queries (default 20250601)
          --autofill PATH       the autofill binary (default: the one next to this benchmark)
          --plugins PATH        the built sample bundles (default: <repo>/.build/plugins)
          --tmp DIR             where the temporary folder goes (default: $TMPDIR or /tmp)
          --keep                keep the temporary folder (its path is printed)
          --json                print JSON instead of the table
          --json-file PATH      also write the JSON to PATH
          -h, --help            show this help

        OTHER FIGURES (each alone, instead of the above):
          --fill [RUNS]         `autofill fill` end to end through the agent, the demo vault (issue C)
          --isolation [RUNS]    helper processes against in process (issue E)
          --agent [RUNS] [...]  the agent: fill at 100 to 100,000 logins against keepassxc-cli, suggest,
                                the first fill, AUTOFILL_AGENT=off, concurrent clients, kill -9
                                (issue H; --agent --help for its options)
          --keepass [RUNS]      the KeePassXC provider: unlock and a warm fill from 10,000 entries
          --keepass-save [RUNS] saving into the KeePassXC provider's 10,000-entry database against
                                keepassxc-cli add and edit -p (medians, p99, ratios)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchmarkError("\(name) needs a value") }
            return value
        }
        func number(_ name: String, minimum: Int = 1) throws -> Int {
            let text = try value(name)
            guard let number = Int(text.replacingUnderscores), number >= minimum else {
                throw BenchmarkError("\(name) takes a whole number of at least \(minimum), not \(text)")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--identities": options.identities = try number(argument, minimum: 100)
            case "--queries": options.queries = try number(argument)
            case "--runs": options.runs = try number(argument)
            case "--replace-runs": options.replaceRuns = try number(argument)
            case "--saves": options.saves = try number(argument)
            case "--naive-queries": options.naiveQueries = try number(argument)
            case "--preparsed-queries": options.preparsedQueries = try number(argument)
            case "--seed": options.seed = UInt64(try number(argument, minimum: 0))
            case "--autofill": options.autofill = try value(argument)
            case "--plugins": options.plugins = try value(argument)
            case "--tmp": options.temporaryParent = try value(argument)
            case "--keep": options.keep = true
            case "--json": options.json = true
            case "--json-file": options.jsonFile = try value(argument)
            case "--memory-probe": options.memoryProbe = (try value(argument), try value(argument))
            case "-h", "--help": throw HelpRequested()
            default: throw BenchmarkError("unknown option \(argument); see --help")
            }
        }
        return options
    }
}

struct HelpRequested: Error {}

extension String {
    /// "100_000" reads as 100000.
    var replacingUnderscores: String { String(filter { $0 != "_" }) }
}
