internal import CAutofillProvider

/// Why ``ProviderHost/openFile(_:)`` opened nothing: the host's reason (never the file's contents).
public struct FileOpenFailure: Error, Equatable, Sendable {
    public let reason: String
}

extension ProviderHost {
    /// Opens `path`, one of the files your plist declares with Access `read` (a file) or `replace-file`,
    /// read-only as it is on disk **now** (`open_file`), and returns its descriptor (close-on-exec; you
    /// own it and close it). Your sandbox holds such a file by the inode it had when you were started:
    /// after another program replaced it by a rename (KeePassXC's safe save), only this reads the new
    /// version; and a file you open this way no longer gets your helper restarted when it is replaced
    /// (docs/SANDBOX.md, "What the provider sees after a rename"). Any time, not only during a request.
    public func openFile(_ path: String) -> Result<Int32, FileOpenFailure> {
        let table = services.table
        let end = MemoryLayout<af_host_services>.offset(of: \af_host_services.open_file)! + MemoryLayout<UnsafeRawPointer>.size
        guard Int(table.size) >= end, let open = table.open_file else {
            return .failure(FileOpenFailure(reason: "this autofill opens no files for providers"))
        }
        var reason = [CChar](repeating: 0, count: 1024)
        var length = 0
        var descriptor: Int32 = -1
        var path = path
        let status = path.withUTF8 { path in
            path.withMemoryRebound(to: CChar.self) { path in
                open(path.baseAddress, path.count, &descriptor, &reason, reason.count, &length)
            }
        }
        guard status == AF_OK, descriptor >= 0 else {
            let why = String(decoding: reason.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FileOpenFailure(reason: why.isEmpty ? String(cString: af_status_description(status)) : why))
        }
        return .success(descriptor)
    }
}
