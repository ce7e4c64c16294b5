internal import AutofillCore
internal import CAutofillProvider

/// A `replace_file` from a helper, put together: announced with the file, the digest and the length
/// (``HostCall/replaceFile(request:path:expectedSHA256:length:)``), then its contents in pieces
/// (``HostCall/replaceFileChunk(request:bytes:)``), handed on whole once the announced length arrived.
/// One at a time per helper (a newer announcement drops one never finished), at most
/// `AF_MAX_REPLACE_FILE_LENGTH` bytes, dropped when its request ends (``drop(request:)``). Pure: the
/// helper's state holds it (``RunningHelper``), the handler writes what it gives.
struct ReplaceAssembly: Sendable {
    /// A whole replace, ready for the handler.
    struct Replace: Sendable, Equatable {
        var request: UInt64
        var path: String
        var expectedSHA256: [UInt8]
        var contents: [UInt8]
    }

    /// What a piece led to.
    enum Step: Sendable, Equatable {
        /// More is to come.
        case more
        /// The announced length arrived.
        case whole(Replace)
        /// The piece breaks the protocol (no announcement of its request, past the length, empty): nothing
        /// is written, and the replace being put together, if any, is dropped.
        case refused(String)
    }

    private var pending: (replace: Replace, length: Int)?

    /// Starts a replace of `length` bytes; nil, or why not (nothing is kept).
    mutating func start(request: UInt64, path: String, expectedSHA256: [UInt8], length: UInt64) -> String? {
        pending = nil
        guard (1...UInt64(AF_MAX_REPLACE_FILE_LENGTH)).contains(length) else {
            return "the new contents of \(DisplayText.line(path, limit: 300)) have \(length) bytes; autofill replaces a file with 1 byte to \(AF_MAX_REPLACE_FILE_LENGTH >> 20) MiB; nothing was written"
        }
        var contents: [UInt8] = []
        contents.reserveCapacity(Int(length))
        pending = (Replace(request: request, path: path, expectedSHA256: expectedSHA256, contents: contents), Int(length))
        return nil
    }

    /// Adds `piece` to the replace of `request`.
    mutating func take(_ piece: [UInt8], of request: UInt64) -> Step {
        guard let length = pending?.length, pending?.replace.request == request, var replace = pending?.replace else {
            pending = nil  // the helper broke the protocol: whatever it was putting together is dropped
            return .refused("a piece of a replace_file that was not announced (or was dropped when its request ended); nothing was written")
        }
        pending = nil  // the buffer is this function's alone while it grows
        guard !piece.isEmpty, replace.contents.count + piece.count <= length else {
            return .refused("the pieces of a replace_file go past the \(length) bytes announced; nothing was written")
        }
        replace.contents += piece
        guard replace.contents.count == length else {
            pending = (replace, length)
            return .more
        }
        return .whole(replace)
    }

    /// Drops the replace of `request`, if one is being put together (its request ended).
    mutating func drop(request: UInt64) {
        if pending?.replace.request == request { pending = nil }
    }
}
