import Foundation
import RedisClient
import Testing

extension IntegrationTests {
    @Suite("Pipelining and binary safety")
    struct PipeliningTests {
        @Test func tenThousandConcurrentSetGetRoundTrips() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let prefix = uniquePrefix("pipeline")
            try await client.ping()  // exclude connection setup of the first slot from the timing

            let count = 10_000
            let clock = ContinuousClock()
            let start = clock.now
            let correct = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let key = "\(prefix)\(index)"
                        let value = bytes("value-\(index)")
                        let stored = try await client.set(key, value)
                        let read = try await client.get(key)
                        return stored && read == value
                    }
                }
                var correct = 0
                for try await ok in group where ok { correct += 1 }
                return correct
            }
            let elapsed = clock.now - start
            print("10,000 concurrent pipelined SET+GET round-trips (20,000 commands) took \(elapsed)")
            #expect(correct == count)
            for chunk in stride(from: 0, to: count, by: 1_000) {
                let keys = (chunk..<min(chunk + 1_000, count)).map { "\(prefix)\($0)" }
                #expect(try await client.del(keys) == keys.count)
            }
            await client.shutdown()
        }

        @Test func largeValuesSplitAcrossReads() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let key = uniquePrefix("large") + "value"
            for size in [1 << 20, 4 << 20] {
                let seed = UInt64.random(in: 1...UInt64.max)
                var value = (0..<UInt64(size)).map {
                    UInt8(truncatingIfNeeded: ($0 &+ seed) &* 0x9E37_79B9_7F4A_7C15 >> 56)
                }
                value.replaceSubrange(100..<104, with: bytes("\r\n\0\r"))
                #expect(try await client.set(key, value))
                let read = try await client.get(key)
                #expect(read?.count == size)
                #expect(read == value)
            }
            // Small commands behind a big reply on the same connections still line up.
            async let big = client.get(key)
            async let small = client.send("ECHO", "after")
            let (bigValue, smallValue) = try await (big, small)
            #expect(bigValue?.count == 4 << 20)
            #expect(smallValue == .bulkString(bytes("after")))
            _ = try await client.del([key])
            await client.shutdown()
        }

        @Test func binaryKeysAndValuesRoundTrip() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let key: [UInt8] = bytes(uniquePrefix("binary")) + [0, 13, 10, 0xFF, 0, 36, 42]
            var value: [UInt8] = Array(0...255)
            value += bytes("\r\n$3\r\n*1\r\n") + [0, 0, 13, 10]
            #expect(try await client.set(key, value))
            #expect(try await client.get(key) == value)
            // The key with NULs is distinct from its prefix up to the first NUL.
            #expect(try await client.get(Array(key.prefix(while: { $0 != 0 }))) == nil)
            let raw = try await client.send([bytes("STRLEN"), key])
            #expect(raw == .integer(Int64(value.count)))
            #expect(try await client.del([key]) == 1)
            #expect(try await client.get(key) == nil)
            await client.shutdown()
        }
    }
}
