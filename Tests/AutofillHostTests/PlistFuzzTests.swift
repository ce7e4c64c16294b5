import AutofillTestSupport
@testable import AutofillHost
@testable import AutofillProviderRuntime
import Foundation
import Glibc
import Testing

/// The fuzz target for everything the host reads from a bundle before any choice is made: the
/// Info.plist (XML and binary), through the guard, Foundation's decoder, the manifest checks and the
/// sandbox declaration (``ManifestReader/manifest(plist:bundlePath:)``). No byte sequence may crash or
/// hang it: an XML `<integer>` of seven 0xFE or eight 0xFF bytes trapped inside Foundation (both are in
/// the corpus), and ended `autofill providers list` for a bundle merely lying in a plugin folder.
///
/// Each batch runs in a child process (an exit test), so a crash fails the batch instead of ending the
/// test run; the child names each input before reading it, and a failed batch names the input that
/// crashed and writes it to a file. The seed corpus is `Fuzz/plist/`; mutations come from a seeded
/// generator, so every run reads the same inputs. `Scripts/fuzz-plist --minutes N` runs batches with
/// new seeds for N minutes (docs/PERFORMANCE.md, "Fuzzing").
struct PlistFuzzTests {
    static let corpusFolder: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Fuzz/plist").path
    }()

    static func corpus() throws -> [Data] {
        try FileManager.default.contentsOfDirectory(atPath: corpusFolder).sorted().map {
            try Data(contentsOf: URL(fileURLWithPath: "\(corpusFolder)/\($0)"))
        }
    }

    /// Inputs per batch, and batches in the suite's run.
    static let batchSize = 1_000
    static let batches = 4

    /// Reads every input of batch `seed` (the corpus first, for seed 0), writing the name of each to
    /// `progress` before reading it; SIGALRM ends the process if the batch takes over two minutes.
    static func run(seed: UInt64, progress: String) {
        guard let corpus = try? corpus(), !corpus.isEmpty else { exit(2) }
        let file = open(progress, O_WRONLY | O_CLOEXEC)
        alarm(120)
        var generator = SplitMix64(seed: seed)
        func read(_ input: Data, named name: String) {
            let line = Array("\(name)\n".utf8)
            _ = line.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) }
            _ = ftruncate(file, off_t(line.count))
            _ = ManifestReader.manifest(plist: input, bundlePath: "/fuzz/Fuzz.afprovider")
        }
        if seed == 0 { for (index, input) in corpus.enumerated() { read(input, named: "corpus input \(index)") } }
        for index in 0..<batchSize {
            read(PlistMutator.mutate(corpus, using: &generator), named: "seed \(seed) input \(index)")
        }
        exit(0)
    }

    /// Runs batch `seed` in a child process; on a crash or hang, names the input and saves it.
    static func runBatch(seed: UInt64) async throws {
        let progress = "\(NSTemporaryDirectory())/autofill-fuzz-\(getpid())-\(seed)"
        _ = FileManager.default.createFile(atPath: progress, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: progress) }
        let result = await #expect(processExitsWith: .success) { [seed = seed as UInt64, progress = progress as String] in
            PlistFuzzTests.run(seed: seed, progress: progress)
        }
        guard result == nil else { return }
        let last = (try? String(contentsOfFile: progress, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var saved = ""
        if let index = last.split(separator: " ").last.flatMap({ Int($0) }), last.hasPrefix("seed ") {
            // The generator is deterministic: the input is made again here, without reading it, and kept.
            var generator = SplitMix64(seed: seed)
            var input = Data()
            for _ in 0...index { input = PlistMutator.mutate(try corpus(), using: &generator) }
            saved = "\(NSTemporaryDirectory())/autofill-fuzz-crash-\(seed)-\(index).plist"
            try input.write(to: URL(fileURLWithPath: saved))
            saved = "; the input is in \(saved)"
        }
        Issue.record("the reader crashed or hung on \(last.isEmpty ? "its first input" : last)\(saved); rerun: Scripts/fuzz-plist --seed \(seed)")
    }

    @Test func theSeedCorpusIsReadAndItsSamplesAreValid() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= 10)
        // The samples' plists, XML and binary, read as manifests: the corpus exercises the real paths.
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpusFolder).sorted()
        for (name, data) in zip(names, corpus) where name.hasSuffix("Provider.xml.plist") || name.hasSuffix("Provider.binary.plist") {
            let (manifest, problems) = ManifestReader.manifest(plist: data, bundlePath: "/fuzz/Fuzz.afprovider")
            #expect(manifest != nil, "\(name): \(problems)")
        }
    }

    /// The inputs that trapped Foundation (SIGILL, exit 132) are refused, naming why; read in a child
    /// process, since a regression would end the test run.
    @Test(arguments: ["IntegerOfFEBytes.xml.plist", "IntegerOfFFBytes.xml.plist"])
    func theInputsThatTrappedFoundationAreRefused(name: String) async throws {
        await #expect(processExitsWith: .success) { [name = name as String] in
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(PlistFuzzTests.corpusFolder)/\(name)"))
            let (manifest, problems) = ManifestReader.manifest(plist: data, bundlePath: "/fuzz/Fuzz.afprovider")
            exit(manifest == nil && problems.map(\.message) == ["refused before reading it: is not valid UTF-8 text"] ? 0 : 1)
        }
    }

    @Test(arguments: 0..<UInt64(batches))
    func mutatedBundlesNeverCrashTheReader(batch: UInt64) async throws {
        try await Self.runBatch(seed: batch)
    }

    /// `Scripts/fuzz-plist` sets AUTOFILL_FUZZ_SECONDS (and AUTOFILL_FUZZ_SEED): batches with new seeds until then.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["AUTOFILL_FUZZ_SECONDS"] != nil))
    func aLongerRun() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = Double(environment["AUTOFILL_FUZZ_SECONDS"] ?? "") ?? 60
        var seed = UInt64(environment["AUTOFILL_FUZZ_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
        let end = Date().addingTimeInterval(seconds)
        var batches = 0
        repeat {
            try await Self.runBatch(seed: seed)
            seed &+= 1
            batches += 1
        } while Date() < end
        print("fuzz-plist: \(batches) batches of \(Self.batchSize) inputs, seeds up to \(seed - 1)")
    }
}

/// Mutations of plist bytes: flips, replacements, insertions of plist and number tokens, deletions,
/// duplications, splices of two inputs, and edits of a binary plist's trailer and markers.
enum PlistMutator {
    static let tokens: [[UInt8]] = [
        "<integer>", "</integer>", "<real>", "</real>", "<date>", "</date>", "<data>", "</data>", "<string>", "</string>",
        "<dict>", "</dict>", "<array>", "</array>", "<key>", "</key>", "<true/>", "<false/>", "<!--", "-->", "<![CDATA[", "]]>",
        "&#x0;", "&#xFFFF;", "&amp;", "&", "<?xml version=\"1.0\" encoding=\"UTF-16\"?>", "<!DOCTYPE plist [<!ENTITY a \"b\">]>",
        "99999999999999999999", "-9223372036854775808", "9223372036854775808", "0x7fffffffffffffff", "1e400", "nan", "-inf",
        "2025-13-45T99:99:99Z", "${", "}", "$HOME", "~/", "/proc/self/root", "..", "bplist00",
    ].map { Array($0.utf8) } + [[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0], [0xFE, 0xFF], [0xFF, 0xFE]]

    static func mutate(_ corpus: [Data], using generator: inout SplitMix64) -> Data {
        var bytes = [UInt8](corpus[Int(generator.next() % UInt64(corpus.count))])
        for _ in 0..<(1 + Int(generator.next() % 8)) {
            mutateOnce(&bytes, corpus: corpus, using: &generator)
        }
        return Data(bytes.prefix(PlistGuard.maximumBytes + 16))
    }

    static func mutateOnce(_ bytes: inout [UInt8], corpus: [Data], using generator: inout SplitMix64) {
        func position(_ extra: Int = 0) -> Int { Int(generator.next() % UInt64(bytes.count + extra + 1)) }
        if bytes.isEmpty { bytes = [UInt8]("<plist/>".utf8) }
        switch generator.next() % 9 {
        case 0:  // flip a bit
            let at = position() % bytes.count
            bytes[at] ^= 1 << UInt8(generator.next() % 8)
        case 1:  // a random byte
            bytes[position() % bytes.count] = UInt8(truncatingIfNeeded: generator.next())
        case 2, 3:  // a token
            let token = tokens[Int(generator.next() % UInt64(tokens.count))]
            bytes.insert(contentsOf: token, at: position())
        case 4:  // delete a range
            let start = position() % bytes.count
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + Int(generator.next() % 64)))
        case 5:  // duplicate a range
            let start = position() % bytes.count
            let slice = Array(bytes[start..<min(bytes.count, start + 1 + Int(generator.next() % 256))])
            bytes.insert(contentsOf: slice, at: position())
        case 6:  // splice another input
            let other = [UInt8](corpus[Int(generator.next() % UInt64(corpus.count))])
            let cut = position() % bytes.count, from = Int(generator.next() % UInt64(other.count))
            bytes = Array(bytes[..<cut]) + Array(other[from...])
        case 7:  // replace a value's text between > and <
            guard let open = bytes[(position() % bytes.count)...].firstIndex(of: UInt8(ascii: ">")),
                let close = bytes[open...].firstIndex(of: UInt8(ascii: "<"))
            else { return }
            let token = tokens[Int(generator.next() % UInt64(tokens.count))]
            bytes.replaceSubrange(open + 1..<close, with: token)
        default:  // an interesting byte at a binary plist's trailer or an object marker
            guard bytes.count > 40 else { return }
            let interesting: [UInt8] = [0x00, 0x01, 0x08, 0x0F, 0x10, 0x13, 0x14, 0x1F, 0x23, 0x33, 0x4F, 0x5F, 0x6F, 0x7F, 0x80, 0xA0, 0xAF, 0xD0, 0xDF, 0xFF]
            let at = generator.next() % 2 == 0 ? bytes.count - 32 + Int(generator.next() % 32) : 8 + position() % (bytes.count - 8)
            bytes[at] = interesting[Int(generator.next() % UInt64(interesting.count))]
        }
    }
}
