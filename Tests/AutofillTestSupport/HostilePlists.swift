public import Foundation

/// Property lists built to break a reader: nested without end, referring to themselves, expanding
/// to billions of values. For the tests that every command survives them (PlistGuard).
public enum HostilePlists {
    /// An XML plist whose top dictionary holds the valid keys of `plist` plus `Deep`, an array
    /// nested `depth` levels.
    public static func nestedXML(depth: Int, around plist: [String: Any] = [:]) throws -> Data {
        let valid = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        var text = String(decoding: valid, as: UTF8.self)
        let deep = "<key>Deep</key>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        if let end = text.range(of: "</dict>\n</plist>", options: .backwards) {
            text.replaceSubrange(end, with: deep + "</dict>\n</plist>")
        } else {
            text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>\(deep)</dict></plist>\n"
        }
        return Data(text.utf8)
    }

    /// The 43-byte binary plist whose one array contains itself.
    public static var selfReferencingBinary: Data {
        binary(objects: [[0xA1, 0x00]], top: 0)
    }

    /// A binary plist of `levels` arrays, each holding the next one twice: a few hundred bytes that
    /// expand to 2^levels values.
    public static func expandingBinary(levels: Int) -> Data {
        var objects: [[UInt8]] = (0..<levels).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x10, 0x00])
        return binary(objects: objects, top: 0)
    }

    /// A binary plist of `depth` arrays, each holding the next once.
    public static func deepBinary(depth: Int) -> Data {
        var objects: [[UInt8]] = (0..<depth).map { index in [0xA1] + bigEndian(index + 1, size: 2) }
        objects.append([0x10, 0x00])
        return binary(objects: objects, top: 0, referenceSize: 2)
    }

    /// `bplist00`, the objects (their references `referenceSize` bytes), the offset table, the trailer.
    static func binary(objects: [[UInt8]], top: Int, referenceSize: Int = 1) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        let offsetSize = table > 0xFFFF ? 4 : table > 0xFF ? 2 : 1
        for offset in offsets { bytes += bigEndian(offset, size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bytes += bigEndian(objects.count, size: 8) + bigEndian(top, size: 8) + bigEndian(table, size: 8)
        return Data(bytes)
    }

    static func bigEndian(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
    }
}
