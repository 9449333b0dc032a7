import Foundation
import Glibc

extension SpawnedProcess {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
    /// time: Swift's Glibc module does not declare it.
    static let closeFromAction: CloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// Runs `body` on a new thread (blocking calls stay off the cooperative pool).
    static func startThread(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread(body)
    }

    /// Reads `descriptor` to its end on a thread of its own, then closes it.
    static func readToEnd(_ descriptor: Int32) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            startThread {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 16_384)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        bytes.append(contentsOf: chunk[..<count])
                    } else if count == 0 || errno != EINTR {
                        break
                    }
                }
                close(descriptor)
                continuation.resume(returning: bytes)
            }
        }
    }
}

/// NUL-terminated copies of strings, freed with the value, for a C `char *const[]`.
final class CStrings {
    private let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    deinit {
        for pointer in pointers { free(pointer) }
    }

    func withPointers<T>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
