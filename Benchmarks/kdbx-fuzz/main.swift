import Foundation
import KDBX

// kdbx-fuzz: the KeePass reader's fuzz target (docs/WRITING_A_PROVIDER.md, "Fuzzing the KeePass
// reader"). Deterministic: the same seed and count give the same inputs. A crash ends the process
// (the tests run it as a child and fail on it); --last names a file each input is written to first,
// so a crash leaves the input behind.
//   kdbx-fuzz [--seed N] [--iterations N | --seconds S] [--corpus DIR] [--last FILE] [--verbose]
// --verbose says how each seed, unmutated, was read (a seed that fails reaches little).

var seed: UInt64 = 1
var iterations = 10_000
var seconds: Double?
var corpus: String?
var last: String?
var verbose = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    if argument == "--verbose" {
        verbose = true
        continue
    }
    let value = arguments.next() ?? ""
    switch argument {
    case "--seed": seed = UInt64(value) ?? seed
    case "--iterations": iterations = Int(value) ?? iterations
    case "--seconds": seconds = Double(value)
    case "--corpus": corpus = value
    case "--last": last = value
    default:
        FileHandle.standardError.write(Data("kdbx-fuzz: unknown option \(argument)\nusage: kdbx-fuzz [--seed N] [--iterations N | --seconds S] [--corpus DIR] [--last FILE] [--verbose]\n".utf8))
        exit(64)
    }
}

let seeds: [Seed]
do {
    seeds = try Seeds.builtIn() + (corpus.map(Seeds.load) ?? [])
} catch {
    FileHandle.standardError.write(Data("kdbx-fuzz: cannot read the corpus: \(error)\n".utf8))
    exit(66)
}
var mutator = Mutator(seed: seed)
let databases = seeds.filter { $0.kind == .database }
let others = seeds.filter { $0.kind != .database }
var counts: [Seed.Kind: Int] = [:]
var errors = 0
let start = Date()
var done = 0
// Each seed once as it is, then mutations.
while seconds.map({ Date().timeIntervalSince(start) < $0 }) ?? (done < iterations) {
    // A whole database pays its key derivation (KeePassXC's least is about 100 ms): one input in 200.
    let pool = done % 200 == 0 && !databases.isEmpty ? databases : others
    let original = done < seeds.count ? seeds[done] : pool[mutator.number(pool.count)]
    let input = done < seeds.count ? original.bytes : mutator.mutate(original.bytes, other: seeds[mutator.number(seeds.count)].bytes)
    if let last { _ = FileManager.default.createFile(atPath: last, contents: Data(input)) }
    let failure: KDBXError? = switch original.kind {
    case .xml:
        // Read as the reader reads it; when it reads, rewritten as a save rewrites it.
        { version4 in KDBXFuzzing.document(input, version4: version4) ?? KDBXFuzzing.rewrite(input, version4: version4) }(mutator.number(2) == 0)
    case .payload4: KDBXFuzzing.payload(input, version4: true, compressed: false)
    case .payload3: KDBXFuzzing.payload(input, version4: false, compressed: false)
    case .payload4gz: KDBXFuzzing.payload(input, version4: true, compressed: true)
    case .payload3gz: KDBXFuzzing.payload(input, version4: false, compressed: true)
    case .key: KDBXFuzzing.keyFile(input)
    case .database: KDBXFuzzing.database(input, password: "fuzz")
    }
    if failure != nil { errors += 1 }
    if verbose && done < seeds.count { print("seed \(original.name): \(failure.map { "error: \($0.message)" } ?? "read")") }
    counts[original.kind, default: 0] += 1
    done += 1
}
let kinds = Seed.Kind.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
print("kdbx-fuzz: \(done) inputs (\(kinds)) from \(seeds.count) seeds, seed \(seed), in \(String(format: "%.1f", Date().timeIntervalSince(start))) s: \(errors) ended in an error, \(done - errors) were read, no crash")
