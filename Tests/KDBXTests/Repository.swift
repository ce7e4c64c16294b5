import Foundation

/// The checkout these tests run in: its built programs and support scripts.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Repository.swift, KDBXTests, Tests
        return url.path
    }()
}
