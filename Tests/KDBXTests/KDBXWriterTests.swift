import AutofillCore
import AutofillTestSupport
import Foundation
@testable import KDBX
import Testing

/// Saving into databases keepassxc-cli and pykeepass made (KDBX 3.1 and 4, each cipher and key
/// derivation, key files), read back by the same tools: the new or changed entry as written, and
/// everything else (entries, groups, attachments, history) as before, compared in the tools' dumps.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KDBXWriterTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx-writer") }

    /// A database, made by which tool, in which format.
    enum Kind: String, CaseIterable, Sendable {
        case keepassxc31, keepassxc4AESKDF, keepassxc4Argon2dAES, keepassxc4Argon2idChaCha20, keepassxc4Argon2dTwofish
        case pykeepass4, pykeepass31

        var version: String { self == .keepassxc31 || self == .pykeepass31 ? "3.1" : "4" }
        var madeByPykeepass: Bool { self == .pykeepass4 || self == .pykeepass31 }
    }

    static let key = KeePassXC.Key(password: "pw")
    static let composite = CompositeKey(password: Secret("pw"), keyFile: nil)

    /// A database of `kind`: Mail, Bank (a history item and an attachment) and Work/VPN.
    func make(_ kind: Kind, key: KeePassXC.Key = Self.key) throws -> String {
        let path = "\(folder.path)/\(kind.rawValue).kdbx"
        switch kind {
        case .pykeepass4, .pykeepass31:
            if kind == .pykeepass31 { try KeePassXC.create(path, key: key) }
            let made = try python("make_database.py", [path, kind == .pykeepass4 ? "create4" : "fill31"], input: key.password ?? "")
            try #require(made.status == 0, "\(made.stderr)")
            return path
        case .keepassxc31: try KeePassXC.create(path, key: key)
        case .keepassxc4AESKDF:
            try KeePassXC.importXML(try folder.file("import.xml", KeePassXML(entries: [], kdbx4: true).text), to: path, key: key)
        case .keepassxc4Argon2dAES, .keepassxc4Argon2idChaCha20, .keepassxc4Argon2dTwofish:
            let (variant, cipher) = switch kind {
            case .keepassxc4Argon2dAES: ("argon2d", "aes256")
            case .keepassxc4Argon2idChaCha20: ("argon2id", "chacha20")
            default: ("argon2d", "twofish")
            }
            try KeePassXC.createArgon2(path, password: "pw", variant: variant, cipher: cipher, title: "Mail", user: "alice",
                                       url: "https://mail.example", entryPassword: "old-mail")
        }
        if ![.keepassxc4Argon2dAES, .keepassxc4Argon2idChaCha20, .keepassxc4Argon2dTwofish].contains(kind) {
            try KeePassXC.add(path, key: key, title: "Mail", user: "alice", url: "https://mail.example", password: "old-mail")
        }
        try KeePassXC.add(path, key: key, title: "Bank", user: "bob", url: "https://bank.example", password: "bank-1")
        try KeePassXC.changePassword(path, key: key, title: "Bank", to: "bank-2")
        let attachment = try folder.file("statement.pdf", String(repeating: "statement ✓ ", count: 8000))
        try KeePassXC.importAttachment(path, key: key, title: "Bank", name: "statement.pdf", file: attachment)
        try KeePassXC.makeGroup(path, key: key, name: "Work")
        try KeePassXC.add(path, key: key, title: "Work/VPN", user: "carol", url: "https://vpn.example", password: "vpn-pw")
        return path
    }

    func python(_ script: String, _ arguments: [String], input: String = "") throws -> ChildProcess.Result {
        try ChildProcess.run("/usr/bin/env", ["python3", "\(Repository.root)/Tests/KDBXTests/Support/\(script)"] + arguments, input: input + "\n")
    }

    /// The database's XML as the tool that made it reads it, in a file.
    func dump(_ path: String, _ kind: Kind, key: KeePassXC.Key = Self.key, as name: String) throws -> String {
        let file = "\(folder.path)/\(name).xml"
        if kind.madeByPykeepass {
            let dumped = try python("pykeepass_dump.py", [path] + (key.keyFile.map { [$0] } ?? []), input: key.password ?? "")
            try #require(dumped.status == 0, "\(dumped.stderr)")
            try dumped.stdout.write(toFile: file, atomically: false, encoding: .utf8)
        } else {
            try KeePassXC.exportXML(path, key: key).write(toFile: file, atomically: false, encoding: .utf8)
        }
        return file
    }

    func expectSame(_ before: String, _ after: String, minus titles: [String]) throws {
        let compared = try python("compare_exports.py", [before, after] + titles)
        #expect(compared.status == 0, "\(compared.stdout)\(compared.stderr)")
    }

    @Test(arguments: Kind.allCases)
    func aSaveAndAnUpdateKeepTheFormatAndEverythingElseAndKeePassXCReadsThem(kind: Kind) throws {
        let path = try make(kind)
        let headerBefore = try KDBXHeader(reading: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let before = try dump(path, kind, as: "before")

        let saved = try KDBXWriter.save(at: path, key: Self.composite) { _ in
            .add(title: "Shop", userName: "dave", password: Secret("shop-✓-pw"), url: "https://shop.example")
        }
        #expect(saved.entries.contains { $0.title == "Shop" && $0.password.revealed == "shop-✓-pw" })
        #expect(try KeePassXC.password(path, key: Self.key, title: "Shop") == "shop-✓-pw")
        try expectSame(before, try dump(path, kind, as: "added"), minus: ["Shop"])

        let mail = try #require(saved.entries.first { $0.title == "Mail" })
        _ = try KDBXWriter.save(at: path, key: Self.composite) { _ in .setPassword(uuid: mail.uuid, password: Secret("new-mail")) }
        #expect(try KeePassXC.password(path, key: Self.key, title: "Mail") == "new-mail")
        let updated = try dump(path, kind, as: "updated")
        try expectSame(before, updated, minus: ["Shop", "Mail"])
        #expect(try python("history_passwords.py", [updated, "Mail"]).stdout == "old-mail\n")

        let headerAfter = try KDBXHeader(reading: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(headerAfter.majorVersion == headerBefore.majorVersion && headerAfter.minorVersion == headerBefore.minorVersion)
        #expect(headerAfter.cipher == headerBefore.cipher && headerAfter.isCompressed == headerBefore.isCompressed)
        switch (headerBefore.keyDerivation, headerAfter.keyDerivation) {
        case (.aes(let seed, let rounds), .aes(let newSeed, let newRounds)):
            #expect(rounds == newRounds && seed != newSeed)
        case (.argon2(let old), .argon2(let new)):
            #expect(old.variant == new.variant && old.memoryKiB == new.memoryKiB && old.iterations == new.iterations
                    && old.parallelism == new.parallelism && old.salt != new.salt)
        default:
            Issue.record("the key derivation changed: \(headerBefore.keyDerivation) became \(headerAfter.keyDerivation)")
        }
        #expect(headerAfter.masterSeed != headerBefore.masterSeed && headerAfter.encryptionIV != headerBefore.encryptionIV)
    }

    @Test(arguments: [true, false])
    func aKeyFileDatabaseStaysAKeyFileDatabase(withPassword: Bool) throws {
        let keyFile = "\(folder.path)/database.keyx"
        let key = KeePassXC.Key(password: withPassword ? "pw" : nil, keyFile: keyFile)
        let path = try make(.keepassxc31, key: key)
        let composite = CompositeKey(password: withPassword ? Secret("pw") : nil, keyFile: try KeyFile(contentsOf: keyFile))
        let before = try dump(path, .keepassxc31, key: key, as: "before")
        _ = try KDBXWriter.save(at: path, key: composite) { _ in .add(title: "Shop", userName: "dave", password: Secret("s"), url: "https://shop.example") }
        #expect(try KeePassXC.password(path, key: key, title: "Shop") == "s")
        try expectSame(before, try dump(path, .keepassxc31, key: key, as: "after"), minus: ["Shop"])
        if withPassword {
            let withoutKeyFile = try ChildProcess.run(KeePassXC.cli, ["show", "-q", path, "Shop"], input: "pw\n")
            #expect(withoutKeyFile.status != 0)
        }
    }

    @Test func aChangeOnDiskDuringTheSaveIsRefusedAndKept() throws {
        let path = try make(.keepassxc4AESKDF)
        let mode: mode_t = 0o640
        chmod(path, mode)
        let change = { _ = try? KeePassXC.add(path, key: Self.key, title: "Elsewhere", user: "eve", url: "https://else.example", password: "e") }
        do {
            _ = try KDBXWriter.save(at: path, key: Self.composite, beforeReplace: change) { _ in
                .add(title: "Shop", userName: "dave", password: Secret("s"), url: "https://shop.example")
            }
            Issue.record("the save went through over another program's change")
        } catch {
            #expect(error.code == .changedOnDisk)
            #expect(error.message.contains("changed on disk") && error.message.contains("save again"), "\(error.message)")
        }
        #expect(try KeePassXC.password(path, key: Self.key, title: "Elsewhere") == "e")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasSuffix(".tmp") })

        // Saving again reads the new file and applies the change to it; the mode is kept.
        _ = try KDBXWriter.save(at: path, key: Self.composite) { _ in .add(title: "Shop", userName: "dave", password: Secret("s"), url: "https://shop.example") }
        #expect(try KeePassXC.password(path, key: Self.key, title: "Shop") == "s")
        #expect(try KeePassXC.password(path, key: Self.key, title: "Elsewhere") == "e")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value == UInt16(mode))
    }

    @Test func aDatabaseReachedThroughASymbolicLinkIsSavedWhereTheLinkPoints() throws {
        let path = try make(.keepassxc31)
        let link = "\(folder.path)/link.kdbx"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        _ = try KDBXWriter.save(at: link, key: Self.composite) { _ in .add(title: "Shop", userName: "dave", password: Secret("s"), url: "https://shop.example") }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == path)
        #expect(try KeePassXC.password(path, key: Self.key, title: "Shop") == "s")
    }

    @Test func aWrongKeyWritesNothing() throws {
        let path = try make(.keepassxc31)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: KDBXError.self) {
            _ = try KDBXWriter.save(at: path, key: CompositeKey(password: Secret("wrong"), keyFile: nil)) { _ in
                .add(title: "Shop", userName: "dave", password: Secret("s"), url: "https://shop.example")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
