import Foundation
import RedisClient
import Testing

extension IntegrationTests {
    @Suite("Typed commands")
    struct CommandTests {
        @Test func serverErrorReply() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let key = uniquePrefix("error") + "text"
            #expect(try await client.set(key, "not a number"))
            await #expect {
                _ = try await client.incr(key)
            } throws: { error in
                guard case RedisError.server(let message) = error else { return false }
                return message.contains("not an integer")
            }
            // Wrong type: a string used as a list.
            await #expect {
                _ = try await client.send("LPUSH", .bytes(bytes(key)), "x")
            } throws: { error in
                guard case RedisError.server(let message) = error else { return false }
                return message.hasPrefix("WRONGTYPE")
            }
            // The connection stays in sync after error replies.
            try await client.ping()
            #expect(try await client.getString(key) == "not a number")
            _ = try await client.del([key])
            await client.shutdown()
        }

        @Test func stringAndKeyCommands() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            let p = uniquePrefix("commands")

            // SET NX / XX
            #expect(try await client.set(p + "a", "1", condition: .ifExists) == false)
            #expect(try await client.get(p + "a") == nil)
            #expect(try await client.set(p + "a", "1", condition: .ifNotExists))
            #expect(try await client.set(p + "a", "2", condition: .ifNotExists) == false)
            #expect(try await client.getString(p + "a") == "1")
            #expect(try await client.set(p + "a", "3", condition: .ifExists))
            #expect(try await client.getString(p + "a") == "3")

            // SET EX / PX
            #expect(try await client.set(p + "ex", "v", expiration: .seconds(100)))
            let ttl = try await client.send("TTL", .bytes(bytes(p + "ex")))
            #expect((1...100).contains(ttl.integer ?? -1))
            // PX: the server holds a millisecond TTL (checked with PTTL, not a race against the
            // clock), and the key is gone once it has passed.
            #expect(try await client.set(p + "px", bytes("v"), expiration: .milliseconds(300), condition: .ifNotExists))
            let pttl = try await client.send("PTTL", .bytes(bytes(p + "px")))
            #expect((1...300).contains(pttl.integer ?? -1))
            #expect(await eventually(within: .seconds(2)) { try await client.get(p + "px") == nil })

            // GETDEL
            #expect(try await client.set(p + "gd", "gone"))
            #expect(try await client.getdel(p + "gd") == bytes("gone"))
            #expect(try await client.getdel(p + "gd") == nil)
            #expect(try await client.exists([p + "gd"]) == 0)

            // SET ... XX GET: the old value, and nothing written where there was none
            #expect(try await client.setReturningOld(p + "sg", bytes("new"), condition: .ifExists) == nil)
            #expect(try await client.exists([p + "sg"]) == 0)
            #expect(try await client.set(p + "sg", "old"))
            #expect(
                try await client.setReturningOld(
                    p + "sg", bytes("new"), expiration: .milliseconds(5_000), condition: .ifExists) == bytes("old"))
            #expect(try await client.getString(p + "sg") == "new")
            let replacedTTL = try await client.send("PTTL", .bytes(bytes(p + "sg")))
            #expect((1...5_000).contains(replacedTTL.integer ?? -1))

            // EXPIRE / PEXPIRE
            #expect(try await client.expire(p + "missing", seconds: 10) == false)
            #expect(try await client.expire(p + "a", seconds: 100))
            #expect((1...100).contains(try await client.send("TTL", .bytes(bytes(p + "a"))).integer ?? -1))
            #expect(try await client.pexpire(p + "missing", milliseconds: 10) == false)
            #expect(try await client.pexpire(p + "a", milliseconds: 50))
            #expect(await eventually(within: .seconds(2)) { try await client.get(p + "a") == nil })

            // INCR / INCRBY
            #expect(try await client.incrby(p + "n", 5) == 5)
            #expect(try await client.incr(p + "n") == 6)
            #expect(try await client.incrby(p + "n", -10) == -4)

            // MGET with missing keys
            #expect(try await client.set(p + "m1", "one"))
            #expect(try await client.set(p + "m2", bytes("two")))
            let values = try await client.mget([p + "m1", p + "nope", p + "m2"])
            #expect(values == [bytes("one"), nil, bytes("two")])
            #expect(try await client.mget([String]()) == [])

            // EXISTS counts repeats, DEL counts removals
            #expect(try await client.exists([p + "m1", p + "m2", p + "nope", p + "m1"]) == 3)
            #expect(try await client.del([p + "m1", p + "m2", p + "nope"]) == 2)
            #expect(try await client.del([p + "m1"]) == 0)
            #expect(try await client.del([p + "n", p + "ex"]) == 2)

            // Variadic send
            #expect(try await client.send("ECHO", "hi") == .bulkString(bytes("hi")))
            #expect(try await client.send(["PING"]) == .simpleString("PONG"))
            await client.shutdown()
        }

        @Test func scriptsAndNoscriptFallback() async throws {
            // SCRIPT FLUSH affects the whole server: always use a private one.
            let server = try await RedisTestServer.start()
            let client = RedisClient(configuration: server.configuration())
            let echo = "return ARGV[1]"
            let sha = try await client.scriptLoad(echo)
            #expect(sha.count == 40)
            #expect(try await client.evalsha(sha, keys: [], arguments: [bytes("hi")]) == .bulkString(bytes("hi")))

            let incr = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
            #expect(try await client.eval(script: incr, keys: ["counter"], arguments: [bytes("7")]) == .integer(7))

            _ = try await client.send(["SCRIPT", "FLUSH"])
            await #expect {
                _ = try await client.evalsha(sha, keys: [], arguments: [bytes("hi")])
            } throws: { error in
                guard case RedisError.server(let message) = error else { return false }
                return message.hasPrefix("NOSCRIPT")
            }
            // eval: EVALSHA fails with NOSCRIPT, loads the script, retries.
            #expect(try await client.eval(script: incr, keys: ["counter"], arguments: [bytes("3")]) == .integer(10))
            #expect(try await client.eval(script: echo, keys: [], arguments: [[0, 13, 10]]) == .bulkString([0, 13, 10]))
            // And the script is now cached server-side under the same id.
            #expect(try await client.evalsha(sha, keys: [], arguments: [bytes("again")]) == .bulkString(bytes("again")))
            await client.shutdown()
        }

        @Test func shutdownMakesLaterCallsThrow() async throws {
            let (configuration, server) = try await simpleTestServer()
            defer { withExtendedLifetime(server) {} }
            let client = RedisClient(configuration: configuration)
            try await client.ping()
            await client.shutdown()
            await #expect(throws: RedisError.shutdown) { try await client.ping() }
            await #expect(throws: RedisError.shutdown) { _ = try await client.subscribe(["x"]) }
        }
    }
}
