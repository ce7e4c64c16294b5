internal import AutofillSystem

/// The dynamic symbol table of an ELF shared library, read from the file by the host: whether the
/// library exports a function, found the way the dynamic loader's `dlsym` finds it, with no code of
/// the library run.
///
/// `plugin validate` and `providers enable` ask it for the entry symbol before a helper loads the
/// plugin, so the answer never depends on what the plugin's code says about itself (a constructor
/// can write any frame to the helper's socket). It reads what the loader reads: the program headers,
/// the `PT_DYNAMIC` segment, and from there the symbol table (`DT_SYMTAB`, the `.dynsym` section's
/// contents), its strings (`DT_STRTAB`, `.dynstr`) and its hash table (`DT_GNU_HASH` or `DT_HASH`),
/// looked up as `dlsym` does. Section headers are not used: the loader ignores them, so a library
/// without them loads, and a forged `.dynsym` section would fool only a reader that trusted it.
/// ELF32 and ELF64, either byte order. Every offset, size and count is checked against the file
/// before it is read, and every walk is bounded, so a damaged or hostile file is an error, never a
/// crash or a hang.
struct ELFDynamicSymbols {
    /// Why a file's dynamic symbols cannot be read: a sentence naming what is wrong.
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// What the table says about one name.
    enum Lookup: Equatable {
        /// A defined function (or indirect function) the loader exports under this name.
        case function
        /// Exported under this name, but not a function (a variable, say).
        case notFunction
        /// Not exported: absent, undefined (an import), local, hidden, or a hidden symbol version.
        case absent
    }

    private let file: Int32
    private let size: UInt64
    private let is64: Bool
    private let bigEndian: Bool
    private var loads: [(virtual: UInt64, offset: UInt64, size: UInt64)] = []
    private var symbols: UInt64 = 0
    private var symbolSize: UInt64 = 0
    private var strings: UInt64 = 0
    private var stringsSize: UInt64 = 0
    private var gnuHash: UInt64?
    private var sysvHash: UInt64?
    private var versions: UInt64?
    /// `DT_NEEDED` and `DT_SONAME`, as offsets into the string table.
    private var neededNames: [UInt64] = []
    private var soname: UInt64?

    /// Looks `name` up in the dynamic symbol table of the ELF file at `path`.
    static func lookup(_ name: String, inLibrary path: String) throws(Failure) -> Lookup {
        let file: Int32
        do {
            file = try Descriptors.open(path)
        } catch {
            throw Failure("cannot be opened (\(error.reason))")
        }
        defer { Descriptors.closeQuietly(file) }
        guard let info = try? FileStatus(descriptor: file), info.kind == .regular else { throw Failure("is not a regular file") }
        var table = try ELFDynamicSymbols(file: file, size: UInt64(info.size))
        try table.readDynamicSegment()
        return try table.lookup(name)
    }

    /// What a shared library names in its dynamic segment: the libraries it needs (`DT_NEEDED`) and
    /// its own name (`DT_SONAME`).
    struct Linkage: Equatable {
        var soname: String?
        var needed: [String]
    }

    /// The linkage of the library open at `file` (read with pread; the descriptor's offset is untouched).
    static func linkage(ofLibraryAt file: Int32) throws(Failure) -> Linkage {
        guard let info = try? FileStatus(descriptor: file), info.kind == .regular else { throw Failure("is not a regular file") }
        var table = try ELFDynamicSymbols(file: file, size: UInt64(info.size))
        try table.readDynamicSegment()
        guard table.neededNames.count <= 256 else { throw Failure("needs more than 256 libraries") }
        return Linkage(soname: try table.soname.map { offset throws(Failure) in try table.string(at: offset) },
                       needed: try table.neededNames.map { offset throws(Failure) in try table.string(at: offset) })
    }

    /// The NUL-terminated name at `offset` in the string table (at most 4096 bytes).
    private func string(at offset: UInt64) throws(Failure) -> String {
        guard offset < stringsSize else { throw Failure("names a library outside its string table") }
        let bytes = try read(at: strings + offset, count: Int(min(4096, stringsSize - offset)))
        guard let end = bytes.firstIndex(of: 0) else { throw Failure("names a library without end") }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    private init(file: Int32, size: UInt64) throws(Failure) {
        self.file = file
        self.size = size
        guard size >= 16 else { throw Failure("has no ELF header (it is \(size) bytes long)") }
        let identification = try Self.bytes(file, size: size, at: 0, count: 16)
        guard identification[0..<4] == [0x7F, 0x45, 0x4C, 0x46] else { throw Failure("has no ELF header") }
        guard identification[4] == 1 || identification[4] == 2 else { throw Failure("has an unknown ELF class \(identification[4])") }
        guard identification[5] == 1 || identification[5] == 2 else { throw Failure("has an unknown ELF byte order \(identification[5])") }
        is64 = identification[4] == 2
        bigEndian = identification[5] == 2
    }

    // MARK: Reading the file

    private static func bytes(_ file: Int32, size: UInt64, at offset: UInt64, count: Int) throws(Failure) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw Failure("is cut short: \(count) bytes at offset \(offset) lie past its end (\(size) bytes)")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in
                    try Descriptors.read(file, at: Int64(offset) + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]))
                }
            }
            switch got {
            case .success(let count) where count > 0: done += count
            case .success: throw Failure("cannot be read at offset \(offset) (end of file)")
            case .failure(let error): throw Failure("cannot be read at offset \(offset) (\(error.reason))")
            }
        }
        return buffer
    }

    /// An unsigned integer of `width` bytes (1, 2, 4 or 8) at `offset` in `bytes`, in the file's byte order.
    private func integer(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<width {
            let byte = UInt64(bytes[offset + (bigEndian ? index : width - 1 - index)])
            value = value << 8 | byte
        }
        return value
    }

    private func read(at offset: UInt64, count: Int) throws(Failure) -> [UInt8] {
        try Self.bytes(file, size: size, at: offset, count: count)
    }

    /// One integer of `width` bytes at file offset `offset`.
    private func integer(at offset: UInt64, _ width: Int) throws(Failure) -> UInt64 {
        integer(try read(at: offset, count: width), 0, width)
    }

    private var word: Int { is64 ? 8 : 4 }

    /// The file offset of `count` bytes at virtual address `address`, from the loadable segments.
    private func offset(ofAddress address: UInt64, count: UInt64, what: String) throws(Failure) -> UInt64 {
        for load in loads where address >= load.virtual && address - load.virtual < load.size {
            let inside = address - load.virtual
            guard count <= load.size - inside else { break }
            return load.offset + inside
        }
        throw Failure("names its \(what) at address 0x\(String(address, radix: 16)), outside every loadable segment")
    }

    // MARK: The dynamic segment

    private mutating func readDynamicSegment() throws(Failure) {
        let header = try read(at: 0, count: is64 ? 64 : 52)
        guard integer(header, 16, 2) == 3 else { throw Failure("is not a shared library (ELF type \(integer(header, 16, 2)))") }
        let programHeaders = integer(header, is64 ? 32 : 28, word)
        let entrySize = integer(header, is64 ? 54 : 42, 2)
        let count = integer(header, is64 ? 56 : 44, 2)
        guard entrySize >= (is64 ? 56 : 32), count > 0, count < 0xFFFF else { throw Failure("has no usable program headers") }
        var dynamic: (offset: UInt64, size: UInt64)?
        for index in 0..<count {
            let entry = try read(at: programHeaders &+ index * entrySize, count: Int(entrySize))
            let type = integer(entry, 0, 4)
            let (offset, virtual, fileSize) = is64
                ? (integer(entry, 8, 8), integer(entry, 16, 8), integer(entry, 32, 8))
                : (integer(entry, 4, 4), integer(entry, 8, 4), integer(entry, 16, 4))
            if type == 1 {  // PT_LOAD
                guard offset <= size, fileSize <= size - offset else { throw Failure("has a loadable segment past its end") }
                loads.append((virtual, offset, fileSize))
            } else if type == 2 {  // PT_DYNAMIC
                dynamic = (offset, fileSize)
            }
        }
        guard let dynamic else { throw Failure("has no dynamic segment (PT_DYNAMIC): it is not a shared library") }
        let entryBytes = 2 * word
        guard dynamic.size / UInt64(entryBytes) <= 1 << 20 else { throw Failure("has a dynamic segment of \(dynamic.size) bytes") }
        let entries = try read(at: dynamic.offset, count: Int(dynamic.size) / entryBytes * entryBytes)
        var tags: [UInt64: UInt64] = [:]
        for start in stride(from: 0, to: entries.count, by: entryBytes) {
            let tag = integer(entries, start, word)
            if tag == 0 { break }  // DT_NULL
            if tag == 1 { neededNames.append(integer(entries, start + word, word)) }  // DT_NEEDED, one per library
            if tags[tag] == nil { tags[tag] = integer(entries, start + word, word) }
        }
        // DT_SYMTAB 6, DT_STRTAB 5, DT_STRSZ 10, DT_SYMENT 11, DT_HASH 4, DT_GNU_HASH 0x6ffffef5, DT_VERSYM 0x6ffffff0
        guard let symbolAddress = tags[6], let stringAddress = tags[5], let stringsSize = tags[10] else {
            throw Failure("has no dynamic symbol table (DT_SYMTAB, DT_STRTAB, DT_STRSZ)")
        }
        symbolSize = tags[11] ?? UInt64(is64 ? 24 : 16)
        guard symbolSize >= (is64 ? 24 : 16), symbolSize <= 256 else { throw Failure("has dynamic symbols of \(symbolSize) bytes each") }
        symbols = try offset(ofAddress: symbolAddress, count: symbolSize, what: "symbol table")
        strings = try offset(ofAddress: stringAddress, count: stringsSize, what: "symbol names")
        self.stringsSize = stringsSize
        gnuHash = try tags[0x6ffffef5].map { address throws(Failure) in try offset(ofAddress: address, count: 16, what: "GNU hash table") }
        sysvHash = try tags[4].map { address throws(Failure) in try offset(ofAddress: address, count: 8, what: "hash table") }
        soname = tags[14]  // DT_SONAME
        versions = try tags[0x6ffffff0].map { address throws(Failure) in try offset(ofAddress: address, count: 2, what: "symbol versions") }
        guard gnuHash != nil || sysvHash != nil else {
            throw Failure("has no symbol hash table (DT_GNU_HASH or DT_HASH), so the dynamic loader can find none of its symbols")
        }
    }

    // MARK: Looking a name up, as dlsym does

    private func lookup(_ name: String) throws(Failure) -> Lookup {
        let wanted = Array(name.utf8)
        let candidates = gnuHash != nil ? try gnuCandidates(wanted) : try sysvCandidates(wanted)
        var found = Lookup.absent
        for index in candidates {
            let entry = try read(at: symbols &+ index &* symbolSize, count: Int(symbolSize))
            let nameOffset = integer(entry, 0, 4)
            let (information, other, section) = is64
                ? (entry[4], entry[5], integer(entry, 6, 2))
                : (entry[12], entry[13], integer(entry, 14, 2))
            guard try symbolName(at: nameOffset, equals: wanted) else { continue }
            let binding = information >> 4, type = information & 0xF, visibility = other & 0x3
            // Defined; global, weak or unique; default or protected visibility: what dlsym can return.
            guard section != 0, [1, 2, 10].contains(binding), visibility == 0 || visibility == 3 else { continue }
            if let versions, try integer(at: versions &+ index &* 2, 2) & 0x8000 != 0 { continue }  // a hidden version
            if type == 2 || type == 10 { return .function }  // STT_FUNC, STT_GNU_IFUNC
            found = .notFunction
        }
        return found
    }

    /// Whether the symbol name at `offset` in the string table is `wanted`.
    private func symbolName(at offset: UInt64, equals wanted: [UInt8]) throws(Failure) -> Bool {
        guard offset < stringsSize, UInt64(wanted.count) < stringsSize - offset else { return false }
        return try read(at: strings + offset, count: wanted.count + 1) == wanted + [0]
    }

    /// The symbol indexes `DT_GNU_HASH` leads to for `name` (a bucket's chain, up to its end bit).
    private func gnuCandidates(_ name: [UInt8]) throws(Failure) -> [UInt64] {
        guard let table = gnuHash else { return [] }
        let header = try read(at: table, count: 16)
        let buckets = integer(header, 0, 4), offsetOfFirst = integer(header, 4, 4), bloomWords = integer(header, 8, 4)
        guard buckets > 0, buckets <= size / 4, bloomWords <= size / UInt64(word) else { throw Failure("has a damaged GNU hash table") }
        var hash: UInt32 = 5381
        for byte in name { hash = hash &* 33 &+ UInt32(byte) }
        let bucketArray = table + 16 + bloomWords * UInt64(word)
        var index = try integer(at: bucketArray + UInt64(hash) % buckets * 4, 4)
        guard index != 0 else { return [] }
        guard index >= offsetOfFirst else { throw Failure("has a damaged GNU hash table") }
        let chains = bucketArray + buckets * 4
        var candidates: [UInt64] = []
        // Read in blocks; bounded: a chain cannot run past the end of the file.
        while true {
            let start = chains + (index - offsetOfFirst) * 4
            guard start < size else { throw Failure("has a damaged GNU hash table (a chain without end)") }
            let block = try read(at: start, count: Int(min(1024, (size - start) / 4)) * 4)
            guard !block.isEmpty else { throw Failure("has a damaged GNU hash table (a chain without end)") }
            for position in stride(from: 0, to: block.count, by: 4) {
                let value = integer(block, position, 4)
                if UInt32(value) | 1 == hash | 1 { candidates.append(index) }
                if value & 1 != 0 { return candidates }
                index += 1
            }
        }
    }

    /// The symbol indexes `DT_HASH` leads to for `name` (a bucket's chain).
    private func sysvCandidates(_ name: [UInt8]) throws(Failure) -> [UInt64] {
        guard let table = sysvHash else { return [] }
        let header = try read(at: table, count: 8)
        let buckets = integer(header, 0, 4), chainLength = integer(header, 4, 4)
        guard buckets > 0, buckets <= size / 4, chainLength <= size / 4 else { throw Failure("has a damaged hash table") }
        var hash: UInt32 = 0
        for byte in name {
            hash = (hash << 4) &+ UInt32(byte)
            let high = hash & 0xF000_0000
            if high != 0 { hash ^= high >> 24 }
            hash &= ~high
        }
        var index = try integer(at: table + 8 + UInt64(hash) % buckets * 4, 4)
        let chain = try read(at: table + 8 + buckets * 4, count: Int(chainLength) * 4)
        var candidates: [UInt64] = []
        while index != 0 {
            // At most chainLength steps: a chain that loops is damaged.
            guard index < chainLength, UInt64(candidates.count) < chainLength else { throw Failure("has a damaged hash table") }
            candidates.append(index)
            index = integer(chain, Int(index) * 4, 4)
        }
        return candidates
    }
}

extension PluginProblem {
    /// The library exports no function under the plist's entry symbol.
    static func missingEntrySymbol(_ manifest: PluginManifest) -> PluginProblem {
        PluginProblem(
            .missingEntrySymbol, file: manifest.libraryPath, keyPath: PluginManifest.entrySymbolKey,
            message: "the library exports no function named \(manifest.entrySymbol)",
            fix: "export it (AF_EXPORT in C, @c or @_cdecl in Swift), or name the exported one in \(PluginManifest.entrySymbolKey); `nm -D --defined-only \(manifest.libraryPath)` lists what it exports")
    }

    /// The host's own check of `manifest`'s entry symbol, in the library's dynamic symbol table (no
    /// code of the plugin runs): nil when the library exports a function under that name.
    package static func entrySymbolCheck(_ manifest: PluginManifest) -> PluginProblem? {
        do {
            switch try ELFDynamicSymbols.lookup(manifest.entrySymbol, inLibrary: manifest.libraryPath) {
            case .function:
                return nil
            case .notFunction:
                return PluginProblem(
                    .missingEntrySymbol, file: manifest.libraryPath, keyPath: PluginManifest.entrySymbolKey,
                    message: "the library exports \(manifest.entrySymbol), but not as a function",
                    fix: "export the entry function under that name (AF_EXPORT in C, @c or @_cdecl in Swift)")
            case .absent:
                return missingEntrySymbol(manifest)
            }
        } catch {
            return PluginProblem(
                .notSharedLibrary, file: manifest.libraryPath,
                message: "its dynamic symbol table cannot be read: the file \(error.message)",
                fix: "rebuild it as a shared library (cc -shared, or a .dynamic Swift product) and bundle the built file")
        }
    }
}
