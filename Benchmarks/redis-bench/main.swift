// Measures RedisClient throughput: pipelined SET/GET from many concurrent tasks over a
// small pool, against the redis-server at REDIS_URL (default redis://127.0.0.1:6379).
// Usage: redis-bench [operations=200000] [concurrency=256] [poolSize=4]
import Foundation
import RedisClient

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let operations = arguments.count > 0 ? arguments[0] : 200_000
let concurrency = arguments.count > 1 ? arguments[1] : 256
let poolSize = arguments.count > 2 ? arguments[2] : 4
var configuration = try RedisConfiguration(
    url: ProcessInfo.processInfo.environment["REDIS_URL"] ?? "redis://127.0.0.1:6379")
configuration.poolSize = poolSize
let client = RedisClient(configuration: configuration)
let value = [UInt8](repeating: 0x61, count: 64)
try await client.ping()

func run(_ name: String, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    let perTask = operations / concurrency
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<concurrency {
            group.addTask {
                for index in 0..<perTask { try await body(task * perTask + index) }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let done = perTask * concurrency
    print(
        "\(name): \(done) ops in \(String(format: "%.2f", seconds)) s = \(Int(Double(done) / seconds)) ops/s (concurrency \(concurrency), pool \(poolSize))"
    )
}

try await run("SET") { index in _ = try await client.set("bench:\(index % 10_000)", value) }
try await run("GET") { index in _ = try await client.get("bench:\(index % 10_000)") }
await client.shutdown()
