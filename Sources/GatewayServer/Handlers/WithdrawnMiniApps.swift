import Synchronization

/// The mini apps found, while one answer was put together, to have no version the user may
/// be offered (staged releases); their `mayLaunch` is false. Filled concurrently.
final class WithdrawnMiniApps: Sendable {
    private let ids = Mutex<Set<String>>([])

    func insert(_ id: String) {
        _ = ids.withLock { $0.insert(id) }
    }

    func contains(_ id: String) -> Bool {
        ids.withLock { $0.contains(id) }
    }
}
