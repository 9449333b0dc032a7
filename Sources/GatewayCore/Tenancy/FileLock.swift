#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a file (`flock`), held across processes for the duration
/// of a closure: SQLite migrations run under it, so a gateway and `gatewayctl migrate`
/// starting together do not both apply one migration.
package enum FileLock {
    /// Blocks until the lock on `path` (created if missing) is held, runs `body`, releases.
    package static func holding<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TenantStoreError.invalid("cannot open lock file \(path) (errno \(errno))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw TenantStoreError.invalid("cannot lock \(path) (errno \(errno))") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
