import Testing

/// Parent of every suite that talks to a real redis-server. Serialized so that the
/// timing-sensitive tests (timeouts, restarts) do not compete with the 10k-command test for the CPU.
@Suite("RedisClient against redis-server", .serialized, .timeLimit(.minutes(2)))
struct IntegrationTests {}
