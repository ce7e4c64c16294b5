import Foundation

/// A temporary folder, removed when the last reference to it goes.
public final class TemporaryFolder: Sendable {
    /// The folder's absolute path.
    public let path: String

    /// Creates `…/autofill-<label>-<uuid>` in the system's temporary folder.
    public init(_ label: String = "test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` in the folder and returns its path.
    @discardableResult
    public func file(_ name: String, _ text: String) throws -> String {
        let path = "\(self.path)/\(name)"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
