import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and creates base64 master-key files.
enum MasterKeyFile {
    /// Reads a key file holding base64 text.
    static func read(path: String) throws -> MasterKey {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw MasterKeyError.unreadableFile(
                path: path,
                reason: FileManager.default.fileExists(atPath: path) ? "not readable UTF-8 text" : "no such file")
        }
        return try MasterKey(base64: text, source: "master key file \(path)")
    }

    /// Reads the key at `path`, or atomically creates it (mode 0600, parent folder
    /// created) when absent. Returns whether this call created it. Two processes racing
    /// agree on one key: the file is written aside and hard-linked into place.
    static func readOrCreate(path: String) throws -> (MasterKey, created: Bool) {
        if FileManager.default.fileExists(atPath: path) { return (try read(path: path), false) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw MasterKeyError.unwritableFile(path: path, reason: "cannot create folder \(folder)")
        }
        let key = MasterKey.generate()
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try writeExclusive(path: temporary, contents: key.base64 + "\n")
        defer { unlink(temporary) }
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST { return (try read(path: path), false) }
            throw MasterKeyError.unwritableFile(path: path, reason: String(cString: strerror(code)))
        }
        return (key, true)
    }

    private static func writeExclusive(path: String, contents: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw MasterKeyError.unwritableFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            throw MasterKeyError.unwritableFile(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
