import Foundation
import Testing
@testable import GatewayCore

@Suite struct MasterKeyTests {
    @Test func base64MustDecodeToExactly32Bytes() throws {
        let good = Data(repeating: 1, count: 32).base64EncodedString()
        #expect(try MasterKey(base64: " \(good)\n").base64 == good)
        #expect(throws: MasterKeyError.wrongLength(source: "GATEWAY_MASTER_KEY", byteCount: 16)) {
            try MasterKey.resolve(
                base64: Data(count: 16).base64EncodedString(), file: nil, databasePath: "/x/db", developmentMode: true)
        }
        #expect(throws: MasterKeyError.invalidBase64(source: "GATEWAY_MASTER_KEY")) {
            try MasterKey.resolve(base64: "not base64!", file: nil, databasePath: "/x/db", developmentMode: true)
        }
        #expect(!String(describing: try MasterKey(base64: good)).contains(good))
    }

    @Test func productionRequiresAKey() {
        #expect(throws: MasterKeyError.missing) {
            try MasterKey.resolve(base64: nil, file: nil, databasePath: "/x/db.sqlite", developmentMode: false)
        }
    }

    @Test func developmentGeneratesAPrivateKeyFileBesideTheDatabase() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let db = folder.file("data/gateway.sqlite")
        let first = try MasterKey.resolve(base64: nil, file: nil, databasePath: db, developmentMode: true)
        let keyPath = folder.file("data/master.key")
        #expect(first.source == .generated(path: keyPath))
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = try MasterKey.resolve(base64: nil, file: nil, databasePath: db, developmentMode: true)
        #expect(second.source == .file(path: keyPath))
        #expect(second.key.base64 == first.key.base64)
        // The same file works as GATEWAY_MASTER_KEY_FILE outside development mode.
        let third = try MasterKey.resolve(
            base64: nil, file: keyPath, databasePath: "/elsewhere/db", developmentMode: false)
        #expect(third.key.base64 == first.key.base64)
    }

    @Test func unreadableOrBadKeyFilesFailClearly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: MasterKeyError.self) {
            try MasterKey.resolve(
                base64: nil, file: folder.file("missing.key"), databasePath: "/x/db", developmentMode: true)
        }
        try "c2hvcnQ=".write(toFile: folder.file("short.key"), atomically: true, encoding: .utf8)
        #expect(throws: MasterKeyError.wrongLength(source: "master key file \(folder.file("short.key"))", byteCount: 5))
        {
            try MasterKey.resolve(
                base64: nil, file: folder.file("short.key"), databasePath: "/x/db", developmentMode: true)
        }
    }
}
