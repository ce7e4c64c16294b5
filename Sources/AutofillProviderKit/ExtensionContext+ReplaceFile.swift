internal import CAutofillProvider

/// What became of a ``ExtensionContext/replaceFile(_:with:basedOn:)``.
public enum FileReplaceResult: Equatable, Sendable {
    /// The host replaced the file.
    case replaced
    /// The request was no longer pending: nothing was written.
    case notPending
    /// The file on disk is not the version the change was based on (another program saved it since it
    /// was read): nothing was written. Read it again, apply the change, and replace again.
    case changedOnDisk(String)
    /// The host refused or could not write it (the reason says why; never the contents): nothing was written.
    case failed(String)
}

extension ExtensionContext {
    /// Hands the host the whole new `contents` of `path`, a file your plist declares with `replace-file`
    /// Access (docs/SANDBOX.md): the host puts them in place of the file atomically (with the file's
    /// mode, never through a link), but only while the file on disk is still the one whose SHA-256 is
    /// `basedOn` (32 bytes: the SHA-256 of what you read). Only while this save or credential-update request is
    /// pending, one host write per request; up to `AF_MAX_REPLACE_FILE_LENGTH` (256 MiB).
    ///
    /// Your sandbox keeps showing the version of the file you read until your provider is started again:
    /// base the next change on the contents you handed over (docs/WRITING_A_PROVIDER.md).
    public func replaceFile(_ path: String, with contents: [UInt8], basedOn expectedSHA256: [UInt8]) -> FileReplaceResult {
        let table = host.services.table
        let end = MemoryLayout<af_host_services>.offset(of: \af_host_services.replace_file)! + MemoryLayout<UnsafeRawPointer>.size
        guard Int(table.size) >= end, let replace = table.replace_file else { return .failed("this autofill cannot replace files for providers") }
        guard expectedSHA256.count == 32 else { return .failed("the SHA-256 the change is based on has \(expectedSHA256.count) bytes, not 32") }
        var reason = [CChar](repeating: 0, count: 1024)
        var length = 0
        var path = path
        let status = path.withUTF8 { path in
            contents.withUnsafeBufferPointer { bytes in
                expectedSHA256.withUnsafeBufferPointer { digest in
                    path.withMemoryRebound(to: CChar.self) { path in
                        replace(requestID, path.baseAddress, path.count, bytes.baseAddress, bytes.count, digest.baseAddress,
                                &reason, reason.count, &length)
                    }
                }
            }
        }
        let why = String(decoding: reason.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case AF_OK: return .replaced
        case AF_STATUS_UNKNOWN_REQUEST: return .notPending
        case AF_STATUS_CHANGED_ON_DISK: return .changedOnDisk(why)
        default: return .failed(why.isEmpty ? String(cString: af_status_description(status)) : why)
        }
    }
}
