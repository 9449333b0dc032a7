import RedisClient
import Testing

extension IntegrationTests {
    @Suite("AUTH and SELECT")
    struct AuthTests {
        @Test func authAndSelectFromURL() async throws {
            let server = try await RedisTestServer.start(extraArguments: ["--requirepass", "secret"])
            let db3 = RedisClient(
                configuration: try RedisConfiguration(url: "redis://:secret@127.0.0.1:\(server.port)/3"))
            let db0 = RedisClient(
                configuration: try RedisConfiguration(url: "redis://:secret@127.0.0.1:\(server.port)"))
            let acl = RedisClient(
                configuration: try RedisConfiguration(url: "redis://default:secret@127.0.0.1:\(server.port)/3"))

            #expect(try await db3.set("where", "three"))
            #expect(try await db3.send(["DBSIZE"]) == .integer(1))
            #expect(try await db0.send(["DBSIZE"]) == .integer(0))
            #expect(try await db0.get("where") == nil)
            // AUTH user password + SELECT lands in the same database.
            #expect(try await acl.getString("where") == "three")
            // Every pooled connection (not just the first) is authenticated and on db 3.
            for _ in 0..<8 {
                #expect(try await db3.send(["DBSIZE"]) == .integer(1))
            }

            let wrong = RedisClient(
                configuration: try RedisConfiguration(url: "redis://:nope@127.0.0.1:\(server.port)/3"))
            await #expect {
                try await wrong.ping()
            } throws: { error in
                guard case RedisError.server(let message) = error else { return false }
                return message.contains("WRONGPASS")
            }
            let missing = RedisClient(configuration: server.configuration())
            await #expect {
                try await missing.ping()
            } throws: { error in
                guard case RedisError.server(let message) = error else { return false }
                return message.hasPrefix("NOAUTH")
            }

            for client in [db3, db0, acl, wrong, missing] { await client.shutdown() }
            server.kill()
        }
    }
}

extension IntegrationTests.AuthTests {
    /// An ACL user with its own password (Redis 6+), as managed Redis services hand out.
    @Test func aclUser() async throws {
        let server = try await RedisTestServer.start(extraArguments: ["--requirepass", "admin-secret"])
        let admin = RedisClient(configuration: server.configuration(password: "admin-secret"))
        _ = try await admin.send(["ACL", "SETUSER", "gateway", "on", ">gw-secret", "~gw:*", "+@all"])
        let gateway = RedisClient(
            configuration: try RedisConfiguration(url: "redis://gateway:gw-secret@127.0.0.1:\(server.port)"))
        #expect(try await gateway.set("gw:key", "mine"))
        // The ACL is really in force: keys outside gw:* are refused for this user.
        await #expect {
            _ = try await gateway.set("other:key", "no")
        } throws: { error in
            guard case RedisError.server(let message) = error else { return false }
            return message.hasPrefix("NOPERM")
        }
        let wrongUser = RedisClient(
            configuration: try RedisConfiguration(url: "redis://nobody:gw-secret@127.0.0.1:\(server.port)"))
        await #expect(throws: RedisError.self) { try await wrongUser.ping() }
        for client in [admin, gateway, wrongUser] { await client.shutdown() }
        server.kill()
    }
}
