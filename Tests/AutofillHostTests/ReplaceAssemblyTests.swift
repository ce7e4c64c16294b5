@testable import AutofillHost
import Testing

/// A helper's `replace_file` comes in pieces (the helper protocol's frames are far smaller than a
/// database); the host puts them together and refuses what a hostile helper could send instead.
struct ReplaceAssemblyTests {
    static let digest = [UInt8](repeating: 7, count: 32)

    @Test func piecesMakeTheWholeOnceTheAnnouncedLengthArrived() {
        var assembly = ReplaceAssembly()
        #expect(assembly.start(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 5) == nil)
        #expect(assembly.take([1, 2], of: 4) == .more)
        #expect(assembly.take([3, 4, 5], of: 4)
            == .whole(.init(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, contents: [1, 2, 3, 4, 5])))
        #expect(assembly.take([6], of: 4) == .refused("a piece of a replace_file that was not announced (or was dropped when its request ended); nothing was written"),
                "the replace is over: a piece after it is no part of it")
    }

    @Test func aPieceWithoutAnAnnouncementOfItsRequestIsRefused() {
        var assembly = ReplaceAssembly()
        guard case .refused = assembly.take([1], of: 4) else { Issue.record("a piece nobody announced was taken"); return }
        #expect(assembly.start(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 2) == nil)
        guard case .refused = assembly.take([1], of: 5) else { Issue.record("another request's piece was taken"); return }
        // The refusal dropped the replace: its own request's pieces are refused too.
        guard case .refused = assembly.take([1, 2], of: 4) else { Issue.record("a dropped replace went on"); return }
    }

    @Test func piecesPastTheAnnouncedLengthOrEmptyAreRefusedAndDropTheReplace() {
        var assembly = ReplaceAssembly()
        _ = assembly.start(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 3)
        #expect(assembly.take([1, 2, 3, 4], of: 4) == .refused("the pieces of a replace_file go past the 3 bytes announced; nothing was written"))
        _ = assembly.start(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 3)
        guard case .refused = assembly.take([], of: 4) else { Issue.record("an empty piece was taken"); return }
        guard case .refused = assembly.take([1, 2, 3], of: 4) else { Issue.record("a refused replace went on"); return }
    }

    @Test(arguments: [UInt64(0), UInt64(256 << 20) + 1, UInt64.max])
    func aLengthOutsideOneByteTo256MiBIsRefusedBeforeAnyPiece(length: UInt64) {
        var assembly = ReplaceAssembly()
        #expect(assembly.start(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: length)?
            .contains("autofill replaces a file with 1 byte to 256 MiB; nothing was written") == true)
        guard case .refused = assembly.take([1], of: 4) else { Issue.record("a refused replace took a piece"); return }
    }

    @Test func aReplaceWhoseRequestEndedIsDroppedAndANewAnnouncementTakesThePlaceOfAnUnfinishedOne() {
        var assembly = ReplaceAssembly()
        _ = assembly.start(request: 4, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 3)
        #expect(assembly.take([1], of: 4) == .more)
        assembly.drop(request: 5)
        #expect(assembly.take([2], of: 4) == .more, "another request's end drops nothing")
        assembly.drop(request: 4)
        guard case .refused = assembly.take([3], of: 4) else { Issue.record("a dropped replace went on"); return }
        _ = assembly.start(request: 6, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 1)
        _ = assembly.start(request: 7, path: "/h/db.kdbx", expectedSHA256: Self.digest, length: 1)
        guard case .refused = assembly.take([1], of: 6) else { Issue.record("the unfinished replace went on"); return }
    }
}
