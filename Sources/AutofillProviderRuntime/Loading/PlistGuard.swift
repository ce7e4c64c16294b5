package import FoundationEssentials
internal import AutofillSystem

/// A property list's size and shape, checked before Foundation decodes it, so a hostile or broken
/// file can only ever be reported, never crash or hang the host.
///
/// Every plugin bundle in a search folder is read by every command (`suggest`, `providers list`),
/// so its Info.plist must not be able to break one. Foundation's XML scanner recurses once per
/// nesting level and overflows the stack at about 20,000 levels, before any of our code runs; the
/// binary format lets an array refer to itself (43 bytes that never end) or share one child many
/// times (a few hundred bytes that expand to billions of values). The guard refuses, with a message
/// that says which limit:
///
/// - files over ``maximumBytes`` (1 MiB; an Info.plist is about 1 KB) and anything that is not a
///   regular file (a FIFO or a device would block or never end);
/// - formats other than XML and binary (`bplist00`);
/// - nesting deeper than ``maximumDepth`` (64 levels; an Info.plist needs 6, counting `<plist>`);
/// - a binary plist whose objects refer to themselves through any path (a reference cycle), whose
///   trailer, offsets or references point outside the file, or which expands (shared objects
///   counted every time they are reached) to more than ``maximumObjects`` (100,000) values.
///
/// The scans are iterative (no recursion) and linear in the file, except the binary expansion,
/// which stops at ``maximumObjects``. The host configuration is checked the same way.
package enum PlistGuard {
    /// The largest plist file read (1 MiB).
    static let maximumBytes = 1 << 20
    /// The deepest nesting of arrays and dictionaries (XML elements, counting `<plist>`; binary containers).
    static let maximumDepth = 64
    /// The most values a binary plist may expand to.
    static let maximumObjects = 100_000

    /// Why a plist was refused; the message names the limit.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    /// The contents of the plist file at `path`, or nil when there is no such file. Refuses (without
    /// blocking) anything but a regular file, and files over ``maximumBytes``.
    static func contents(ofFile path: String) throws(Refusal) -> Data? {
        let descriptor: Int32
        do {
            descriptor = try Descriptors.open(path, [.nonblocking, .noControllingTerminal])
        } catch {
            if error.noSuchFile || error.notAFolder { return nil }
            throw Refusal("cannot be opened: \(error.reason)")
        }
        defer { Descriptors.closeQuietly(descriptor) }
        let info: FileStatus
        do {
            info = try FileStatus(descriptor: descriptor)
        } catch {
            throw Refusal("cannot be read: \(error.reason)")
        }
        guard info.kind == .regular else { throw Refusal("is not a regular file") }
        guard info.size <= maximumBytes else { throw tooLarge(Int(info.size)) }
        let read: [UInt8]?
        do {
            read = try Descriptors.readAll(descriptor, limit: maximumBytes)
        } catch {
            throw Refusal("cannot be read: \(error.reason)")
        }
        guard let read else { throw tooLarge(maximumBytes + 1) }
        let data = Data(read)
        try check(data)
        return data
    }

    /// Checks a plist's size, format, nesting and (binary) object graph; see the type's documentation.
    package static func check(_ data: Data) throws(Refusal) {
        guard data.count <= maximumBytes else { throw tooLarge(data.count) }
        let bytes = [UInt8](data)
        if bytes.starts(with: Array("bplist".utf8)) {
            try BinaryScan(bytes).check()
        } else {
            try checkXML(try utf8(bytes))
        }
    }

    private static func tooLarge(_ count: Int) -> Refusal {
        Refusal("\(count) bytes, over the limit of \(maximumBytes) bytes (1 MiB) for a property list")
    }

    private static func tooDeep() -> Refusal {
        Refusal("nested more than \(maximumDepth) levels deep, the most autofill reads")
    }

    /// The text as UTF-8, checked: UTF-16 (with a byte-order mark, or the NUL bytes of ASCII text) is
    /// converted; text that is not valid UTF-8 or UTF-16 is refused (Foundation's scanner trapped on
    /// invalid bytes inside a value).
    private static func utf8(_ bytes: [UInt8]) throws(Refusal) -> [UInt8] {
        let bigEndian = bytes.starts(with: [0xFE, 0xFF]) || (bytes.count >= 2 && bytes[0] == 0 && bytes[1] != 0)
        let littleEndian = bytes.starts(with: [0xFF, 0xFE]) || (bytes.count >= 2 && bytes[0] != 0 && bytes[1] == 0)
        guard bigEndian || littleEndian else {
            guard String(validating: bytes, as: UTF8.self) != nil else { throw Refusal("is not valid UTF-8 text") }
            return bytes
        }
        guard bytes.count % 2 == 0 else { throw Refusal("is not valid UTF-16 text (an odd number of bytes)") }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        for index in stride(from: 0, to: bytes.count - 1, by: 2) {
            let (high, low) = bigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            units.append(UInt16(high) << 8 | UInt16(low))
        }
        var converted: [UInt8] = []
        converted.reserveCapacity(units.count)
        let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) { converted.append($0) }
        guard !failed else { throw Refusal("is not valid UTF-16 text") }
        return converted
    }

    // MARK: XML

    /// Counts element nesting, skipping the prolog, comments, CDATA sections and the document type.
    static func checkXML(_ bytes: [UInt8]) throws(Refusal) {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] == UInt8(ascii: "<") else {
            throw Refusal("is neither an XML nor a binary property list (the only formats autofill reads)")
        }
        var depth = 0
        var index = start
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if matches(bytes, index, "<?") {
                index = after(bytes, "?>", from: index + 2)
            } else if matches(bytes, index, "<!--") {
                index = after(bytes, "-->", from: index + 4)
            } else if matches(bytes, index, "<![CDATA[") {
                index = after(bytes, "]]>", from: index + 9)
            } else if matches(bytes, index, "<!") {
                index = afterDeclaration(bytes, from: index + 2)
            } else if matches(bytes, index, "</") {
                depth -= 1
                index = afterTag(bytes, from: index + 2).end
            } else {
                let (end, selfClosing) = afterTag(bytes, from: index + 1)
                if !selfClosing {
                    depth += 1
                    if depth > maximumDepth { throw tooDeep() }
                    if let scalar = ScalarTag(bytes, nameAt: index + 1) { index = try scalar.check(bytes, contentAt: end); continue }
                }
                index = end
            }
        }
    }

    private static func matches(_ bytes: [UInt8], _ index: Int, _ text: String) -> Bool {
        let pattern = Array(text.utf8)
        return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
    }

    /// The index after the next `text` at or after `from`, or the end.
    private static func after(_ bytes: [UInt8], _ text: String, from: Int) -> Int {
        var index = from
        while index < bytes.count {
            if matches(bytes, index, text) { return index + text.utf8.count }
            index += 1
        }
        return bytes.count
    }

    /// The index after a tag's closing `>` (quoted attribute values may hold `>`), and whether it was `/>`.
    private static func afterTag(_ bytes: [UInt8], from: Int) -> (end: Int, selfClosing: Bool) {
        var index = from
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return (index + 1, index > from && bytes[index - 1] == UInt8(ascii: "/"))
            }
            index += 1
        }
        return (bytes.count, false)
    }

    /// The index after a `<!DOCTYPE …>` declaration, whose internal subset `[…]` may hold `>`.
    private static func afterDeclaration(_ bytes: [UInt8], from: Int) -> Int {
        var index = from
        var brackets = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "["): brackets += 1
            case UInt8(ascii: "]"): brackets -= 1
            case UInt8(ascii: ">") where brackets <= 0: return index + 1
            default: break
            }
            index += 1
        }
        return bytes.count
    }

    // MARK: Binary

    /// Walks a binary plist's object graph from its top object without recursion.
    private struct BinaryScan {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        package func check() throws(Refusal) {
            let broken = Refusal("a binary property list whose trailer, offsets or references point outside the file")
            guard bytes.count >= 8 + 32 else { throw broken }
            let trailer = bytes.count - 32
            let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
                let count = integer(at: trailer + 8, size: 8), let top = integer(at: trailer + 16, size: 8),
                let table = integer(at: trailer + 24, size: 8),
                count >= 1, count <= bytes.count, top < count, table >= 8, table <= trailer,
                count <= (trailer - table) / offsetSize
            else { throw broken }
            let graph = Graph(bytes: bytes, count: count, table: table, offsetSize: offsetSize, referenceSize: referenceSize)

            var onPath = [Bool](repeating: false, count: count)
            var stack: [(object: Int, children: [Int], next: Int)] = [(top, try graph.children(of: top), 0)]
            onPath[top] = true
            var expanded = 1
            while let last = stack.last {
                guard last.next < last.children.count else {
                    onPath[last.object] = false
                    stack.removeLast()
                    continue
                }
                let child = last.children[last.next]
                stack[stack.count - 1].next += 1
                if onPath[child] {
                    throw Refusal("a binary property list whose object \(child) contains itself (a reference cycle)")
                }
                if stack.count + 1 > maximumDepth { throw tooDeep() }
                expanded += 1
                if expanded > maximumObjects {
                    throw Refusal("a binary property list that expands to more than \(maximumObjects) values (objects shared many times)")
                }
                onPath[child] = true
                stack.append((child, try graph.children(of: child), 0))
            }
        }

        /// A big-endian unsigned integer of `size` bytes at `index`, if it fits the file and an `Int`.
        func integer(at index: Int, size: Int) -> Int? {
            guard index >= 0, size >= 1, size <= 8, index <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for byte in bytes[index..<index + size] { value = value << 8 | UInt64(byte) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }

        struct Graph {
            let bytes: [UInt8]
            let count: Int
            let table: Int
            let offsetSize: Int
            let referenceSize: Int

            private var scan: BinaryScan { BinaryScan(bytes) }
            private var broken: Refusal { Refusal("a binary property list whose trailer, offsets or references point outside the file") }

            /// The objects an array, set or dictionary refers to (keys and values); none for other values.
            func children(of object: Int) throws(Refusal) -> [Int] {
                guard let offset = scan.integer(at: table + object * offsetSize, size: offsetSize), offset >= 8, offset < table
                else { throw broken }
                let marker = bytes[offset]
                let perEntry: Int
                switch marker >> 4 {
                case 0xA, 0xB, 0xC: perEntry = 1  // array, ordered set, set
                case 0xD: perEntry = 2  // dictionary: keys, then values
                default: return []
                }
                var start = offset + 1
                var entries = Int(marker & 0x0F)
                if entries == 0x0F {
                    guard start < table, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3,
                        let length = scan.integer(at: start + 1, size: 1 << Int(bytes[start] & 0x0F))
                    else { throw broken }
                    entries = length
                    start += 1 + (1 << Int(bytes[start] & 0x0F))
                }
                guard entries <= (table - start) / (perEntry * referenceSize) else { throw broken }
                var children: [Int] = []
                children.reserveCapacity(entries * perEntry)
                for position in 0..<entries * perEntry {
                    guard let reference = scan.integer(at: start + position * referenceSize, size: referenceSize), reference < count
                    else { throw broken }
                    children.append(reference)
                }
                return children
            }
        }
    }
}
