internal import Foundation

/// What the benchmark ran on, for the report.
struct MachineInfo: Codable {
    var cpu: String
    var cores: Int
    var memoryMegabytes: Int
    var kernel: String
    var system: String
    var filesystem: String
    var sqliteLibrary: String
    var sqliteTool: String?
    var build: String
    /// Cores' worth of CPU other programs used during the run, on average (see LoadMonitor).
    var otherLoadCores: Double = 0
    var stealCores: Double = 0

    static func current(temporaryFolder: String, sqliteLibrary: String) -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu = value(of: "model name", in: cpuinfo, separator: ":") ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let memory = (value(of: "MemTotal", in: meminfo, separator: ":")?.split(separator: " ").first).flatMap { Int($0) } ?? 0
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let system = value(of: "PRETTY_NAME", in: release, separator: "=")?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? "Linux"
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var tool: String?
        if let sqlite3 = Subprocess.find("sqlite3"),
           let outcome = try? Subprocess(path: sqlite3, arguments: ["--version"], environment: []).run(captureOutput: true) {
            tool = outcome.output.split(separator: " ").first.map(String.init)
        }
        #if DEBUG
        let build = "debug (figures are not meaningful: build with -c release)"
        #else
        let build = "release"
        #endif
        return MachineInfo(cpu: cpu, cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), memoryMegabytes: memory / 1024,
                           kernel: kernel, system: system, filesystem: filesystemType(temporaryFolder),
                           sqliteLibrary: sqliteLibrary, sqliteTool: tool, build: build)
    }

    private static func value(of key: String, in text: String, separator: Character) -> String? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: separator, maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The file system type of `path`, from the longest mount point above it (the stores' disk
    /// matters for write figures).
    private static func filesystemType(_ path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return "unknown" }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var best: (mountPoint: String, type: String) = ("", "unknown")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let mountPoint = String(fields[1])
            let covers = mountPoint == "/" || resolved == mountPoint || resolved.hasPrefix(mountPoint + "/")
            if covers && mountPoint.count >= best.mountPoint.count { best = (mountPoint, String(fields[2])) }
        }
        return best.type == "tmpfs" ? "tmpfs (writes never reach a disk)" : best.type
    }
}
