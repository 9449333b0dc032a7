import Foundation
import NIOCore
import NIOPosix
import RedisClient
import Synchronization
import Testing

extension IntegrationTests {
    @Suite("Timeouts, server loss and reconnection")
    struct ResilienceTests {
        @Test func reconnectsAfterServerKilledAndRestarted() async throws {
            let server = try await RedisTestServer.start()
            var configuration = server.configuration()
            configuration.reconnectInitialBackoff = .milliseconds(20)
            configuration.reconnectMaxBackoff = .milliseconds(500)
            let client = RedisClient(configuration: configuration)
            for index in 0..<20 {
                #expect(try await client.set("k\(index)", "v"))
            }

            // Keep commands in flight while the server dies.
            let done = Counter()
            let load = Task {
                var failures: [RedisError] = []
                for index in 0..<2_000 {
                    do {
                        _ = try await client.incr("counter\(index % 10)")
                        done.value.add(1, ordering: .relaxed)
                    } catch let error as RedisError {
                        failures.append(error)
                    }
                    if Task.isCancelled { break }
                }
                return failures
            }
            #expect(
                await eventually(within: .seconds(5), every: .milliseconds(1)) {
                    done.value.load(ordering: .relaxed) >= 50
                })
            try await server.killAndWait()

            // While the server is down, commands fail fast with connectionFailed (never hang).
            let clock = ContinuousClock()
            for _ in 0..<3 {
                let start = clock.now
                await #expect {
                    try await client.ping()
                } throws: { error in
                    guard case RedisError.connectionFailed = error else { return false }
                    return true
                }
                #expect(clock.now - start < .seconds(1))
            }

            try await server.restart()
            let failures = try await load.value
            print(
                "while redis was killed and restarted, \(failures.count) of 2000 commands failed (all connectionFailed)"
            )
            for failure in failures {
                guard case .connectionFailed = failure else {
                    Issue.record("in-flight command failed with \(failure), expected connectionFailed")
                    continue
                }
            }

            // The client reconnects by itself; retry until the backoff window has passed.
            #expect(
                await eventually(within: .seconds(10), every: .milliseconds(50)) {
                    try await client.ping()
                    return true
                })
            // Every pool slot works again.
            for index in 0..<20 {
                #expect(try await client.set("after\(index)", "v\(index)"))
                #expect(try await client.getString("after\(index)") == "v\(index)")
            }
            await client.shutdown()
            server.kill()
        }

        /// A started redis-server, a client on it with `commandTimeout` and `poolSize` that
        /// answered one PING, and then the server paused.
        static func pausedServer(
            commandTimeout: Duration, poolSize: Int
        ) async throws -> (RedisTestServer, RedisClient) {
            let server = try await RedisTestServer.start()
            var configuration = server.configuration()
            configuration.commandTimeout = commandTimeout
            configuration.poolSize = poolSize
            let client = RedisClient(configuration: configuration)
            try await client.ping()
            server.pause()
            return (server, client)
        }

        @Test func stoppedServerTimesOutThenRecovers() async throws {
            let (server, client) = try await Self.pausedServer(commandTimeout: .milliseconds(200), poolSize: 1)
            let clock = ContinuousClock()
            let start = clock.now
            let first = Task { try await client.ping() }
            let second = Task { try await client.get("k") }
            // Both commands are pipelined on the one connection, in whichever order the tasks
            // ran: the head times out, then the connection is dropped and the other fails too
            // (timeout or connectionFailed), never a hang.
            let outcomes: [RedisError?] = [
                await { do { try await first.value; return nil } catch { return error as? RedisError } }(),
                await { do { _ = try await second.value; return nil } catch { return error as? RedisError } }(),
            ]
            let elapsed = clock.now - start
            #expect(outcomes.contains(.timeout), "outcomes: \(outcomes)")
            #expect(
                outcomes.allSatisfy {
                    $0 == .timeout || $0.map { if case .connectionFailed = $0 { true } else { false } } == true
                })
            #expect(elapsed >= .milliseconds(190))
            #expect(elapsed < .milliseconds(2_000), "timeout took \(elapsed)")
            print("command timed out after \(elapsed) (commandTimeout 200 ms)")

            server.resume()
            #expect(await eventually(within: .seconds(5)) { try await client.ping(); return true })
            #expect(try await client.set("k", "v"))
            #expect(try await client.getString("k") == "v")
            await client.shutdown()
            server.kill()
        }

        /// A paused primary held every command for the command timeout until Sentinel failed
        /// over (issue 33: cached reads 3.5-6 s, sign-ins 4.5-8.7 s in `make chaos`).
        @Test func afterATimeoutCommandsFailAtOnceUntilAProbeIsAnswered() async throws {
            let (server, client) = try await Self.pausedServer(commandTimeout: .milliseconds(300), poolSize: 2)
            await #expect(throws: RedisError.timeout) { try await client.ping() }
            // The server still accepts connections (the kernel does), but answers nothing: each
            // command would wait the timeout again. They fail at once instead.
            let clock = ContinuousClock()
            for _ in 0..<5 {
                let start = clock.now
                await #expect(throws: RedisError.self) { _ = try await client.get("k") }
                #expect(clock.now - start < .milliseconds(150), "a command waited \(clock.now - start)")
            }
            server.resume()
            #expect(await eventually(within: .seconds(5)) { try await client.ping(); return true })
            #expect(try await client.set("k", "v"))
            await client.shutdown()
            server.kill()
        }

        @Test func silentListenerTimesOut() async throws {
            // Accepts connections and never answers.
            let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelOption(.autoRead, value: false)
                .bind(host: "127.0.0.1", port: 0)
                .get()
            let port = try #require(listener.localAddress?.port)
            var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
            configuration.commandTimeout = .milliseconds(200)
            let client = RedisClient(configuration: configuration)
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: RedisError.timeout) { try await client.ping() }
            #expect(clock.now - start < .milliseconds(1_000))
            // Then commands fail at once while probes (which get no answer either) go on.
            for _ in 0..<3 {
                let next = clock.now
                await #expect(throws: RedisError.self) { try await client.ping() }
                #expect(clock.now - next < .milliseconds(1_000))
            }
            await client.shutdown()
            try await listener.close()
        }

        @Test func garbageReplyIsAProtocolError() async throws {
            let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(GarbageResponder())
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            let port = try #require(listener.localAddress?.port)
            let client = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: port))
            await #expect {
                try await client.ping()
            } throws: { error in
                guard case RedisError.protocolError = error else { return false }
                return true
            }
            await client.shutdown()
            try await listener.close()
        }

        @Test func nothingListeningFailsFast() async throws {
            let port = try await RedisTestServer.freePort()
            let client = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: port))
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<5 {
                await #expect {
                    try await client.ping()
                } throws: { error in
                    guard case RedisError.connectionFailed = error else { return false }
                    return true
                }
            }
            #expect(clock.now - start < .seconds(2))
            await client.shutdown()
        }
    }
}

/// Answers every read with bytes that are not RESP.
private final class GarbageResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: "?garbage\r\n")), promise: nil)
    }
}

/// A count shared between tasks.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
