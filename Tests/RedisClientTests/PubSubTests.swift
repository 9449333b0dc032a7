import RedisClient
import Testing

extension IntegrationTests {
    @Suite("PUBLISH / SUBSCRIBE")
    struct PubSubTests {
        @Test func subscribeReceivesPublishedMessages() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let publisher = RedisClient(configuration: configuration)
            let channel = uniquePrefix("news") + "channel"
            let other = uniquePrefix("sport") + "channel"

            let subscription = try await client.subscribe([channel, other])
            #expect(subscription.channels == [channel, other])
            let binary: [UInt8] = [0, 13, 10, 255]
            #expect(try await publisher.publish(channel, "hello") == 1)
            #expect(try await publisher.publish(other, binary) == 1)
            #expect(try await publisher.publish(uniquePrefix("nobody"), "lost") == 0)

            let received = try await within(.seconds(5)) {
                var messages: [RedisSubscription.Element] = []
                for try await message in subscription {
                    messages.append(message)
                    if messages.count == 2 { break }
                }
                return messages
            }
            #expect(received.count == 2)
            #expect(received.first?.channel == channel)
            #expect(received.first?.message == bytes("hello"))
            #expect(received.last?.channel == other)
            #expect(received.last?.message == binary)

            await subscription.close()
            // After close the sequence ends and nobody listens any more.
            var iterator = subscription.makeAsyncIterator()
            #expect(try await iterator.next() == nil)
            #expect(try await publisher.publish(channel, "after close") == 0)

            await client.shutdown()
            await publisher.shutdown()
        }

        @Test func shutdownEndsSubscription() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let subscription = try await client.subscribe([uniquePrefix("shutdown")])
            await client.shutdown()
            var iterator = subscription.makeAsyncIterator()
            await #expect(throws: RedisError.shutdown) { _ = try await iterator.next() }
        }
    }
}
