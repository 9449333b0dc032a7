import Logging

/// Background clean-ups (analytics retention, refresh state): one round now, then one every
/// `interval` until the task is cancelled. A failed round is logged as `name` and the next
/// one comes as usual: a clean-up never stops the gateway.
public enum Periodic {
    public static func run(
        every interval: Duration, name: String, logger: Logger, _ round: () async throws -> Void
    ) async {
        while !Task.isCancelled {
            do {
                try await round()
            } catch {
                logger.warning("\(name) failed", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
