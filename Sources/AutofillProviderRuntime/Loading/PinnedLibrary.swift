internal import Crypto
internal import AutofillSystem

/// Loading a plugin's library so that what runs is exactly what was hashed: each file is opened once,
/// hashed through that descriptor, compared with the digest the user approved, and handed to the
/// dynamic loader as `/proc/self/fd/N`, so a file swapped after the check is never the one loaded.
///
/// A library the plugin links from its own bundle (`DT_NEEDED`, found through `$ORIGIN`) is loaded the
/// same way first, so the loader finds it already there by its `DT_SONAME` (`$ORIGIN` of a library
/// loaded through a descriptor is `/proc/self/fd`, where nothing else would be found). Such a library
/// must name itself (`-Wl,-soname,libdep.so`); docs/WRITING_A_PROVIDER.md.
///
/// The descriptors stay open for the life of the process: the loader knows each library by its path,
/// and a number used again would name another file by the same path.
package enum PinnedLibrary {
    /// Opens `manifest`'s library and the libraries of its bundle it needs. `pins`: the approved SHA-256
    /// of each file by its path in the bundle (``PluginFingerprint/files``); nil compares nothing
    /// (`plugin validate` of a bundle nobody approved).
    static func open(_ manifest: PluginManifest, pins: [String: String]?) -> Result<DynamicLibrary, PluginProblem> {
        var loading = Loading(id: manifest.identifier, bundle: manifest.bundlePath, pins: pins,
                              bundled: bundledLibraries(manifest.bundlePath, pins: pins))
        return loading.load(manifest.executable, depth: 0)
    }

    /// The bundle's files by their last path component (a `DT_NEEDED` name), with their paths in the bundle.
    private static func bundledLibraries(_ bundle: String, pins: [String: String]?) -> [String: String] {
        let paths = pins.map { Array($0.keys) } ?? ((try? BundleFiles.list(bundle).map(\.path)) ?? [])
        var byName: [String: String] = [:]
        for path in paths.sorted() {
            let name = String(path.split(separator: "/").last ?? "")
            if byName[name] == nil { byName[name] = path }
        }
        return byName
    }

    private struct Loading {
        let id: String
        let bundle: String
        let pins: [String: String]?
        let bundled: [String: String]
        var opened: [String: DynamicLibrary] = [:]
        var opening: Set<String> = []

        /// Loads `relative` (a path in the bundle) after the bundle's libraries it needs.
        mutating func load(_ relative: String, depth: Int) -> Result<DynamicLibrary, PluginProblem> {
            if let library = opened[relative] { return .success(library) }
            let path = "\(bundle)/\(relative)"
            func problem(_ message: String, _ fix: String) -> Result<DynamicLibrary, PluginProblem> {
                .failure(PluginProblem(.loadFailed, file: path, message: message, fix: fix))
            }
            guard depth < 16, opening.insert(relative).inserted else {
                return problem("the libraries of the bundle need each other in a cycle", "link them so that none needs itself")
            }
            let descriptor: Int32
            do {
                descriptor = try Descriptors.open(path, [.noFollow, .nonblocking])
            } catch {
                return .failure(PluginProblem(.libraryNotFound, file: path, message: "cannot be opened (\(error.reason))",
                                              fix: "check the file exists, is readable and is not a symbolic link"))
            }
            var keep = false
            defer { if !keep { Descriptors.closeQuietly(descriptor) } }
            let digest: String
            do {
                digest = try PinnedLibrary.sha256(of: descriptor)
            } catch {
                return problem("cannot be read to check it (\(error.message))", "check the file is a readable regular file")
            }
            if let pins, pins[relative] != digest {
                return .failure(PluginProblem(
                    .loadFailed, file: path, message: "is not the file you approved: its SHA-256 changed after autofill checked the bundle",
                    fix: "run `autofill providers trust \(id)` after checking the plugin"))
            }
            let linkage: ELFDynamicSymbols.Linkage
            do {
                linkage = try ELFDynamicSymbols.linkage(ofLibraryAt: descriptor)
            } catch {
                return .failure(PluginProblem(.notSharedLibrary, file: path, message: "is not a shared library the host can read: the file \(error.message)",
                                              fix: "rebuild it as a shared library (cc -shared, or a .dynamic Swift product)"))
            }
            if depth > 0, linkage.soname != String(relative.split(separator: "/").last ?? "") {
                return problem("is linked from the bundle but names itself \(linkage.soname.map { "\"\($0)\"" } ?? "nothing") (DT_SONAME), so the loader could not find it loaded",
                               "link it with -Wl,-soname,\(relative.split(separator: "/").last ?? "")")
            }
            for name in linkage.needed {
                guard let dependency = bundled[name], dependency != relative else { continue }
                if case .failure(let failure) = load(dependency, depth: depth + 1) { return .failure(failure) }
            }
            switch DynamicLibrary.open("/proc/self/fd/\(descriptor)") {
            case .success(let library):
                keep = true
                opened[relative] = library
                opening.remove(relative)
                return .success(library)
            case .failure(let error):
                return problem("the dynamic loader refused it: \(error.message)",
                               "`ldd \(path)` lists missing libraries and `ldd -r` undefined symbols; a Swift plugin must be built by this host's Swift toolchain")
            }
        }
    }

    /// The SHA-256 of what `descriptor` holds, read with pread from its start (lowercase hex).
    package static func sha256(of descriptor: Int32) throws(AutofillError) -> String {
        guard (try? FileStatus(descriptor: descriptor))?.kind == .regular else { throw AutofillError(.io, "not a regular file") }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: Int64 = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try Descriptors.read(descriptor, at: offset, into: raw) }
            }
            let count: Int
            switch read {
            case .success(let got): count = got
            case .failure(let error): throw AutofillError(.io, error.reason)
            }
            if count == 0 { break }
            offset += Int64(count)
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return hex(hasher.finalize())
    }

    /// `bytes` in lowercase hexadecimal (how digests are written down).
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
