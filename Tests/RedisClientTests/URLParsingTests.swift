import RedisClient
import Testing

@Suite("RedisConfiguration URL parsing")
struct URLParsingTests {
    @Test func defaults() {
        let configuration = RedisConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 6379)
        #expect(configuration.database == 0)
        #expect(configuration.poolSize == 4)
        #expect(configuration.commandTimeout == .seconds(2))
        #expect(configuration.connectTimeout == .seconds(2))
        #expect(configuration.reconnectInitialBackoff == .milliseconds(50))
        #expect(configuration.reconnectMaxBackoff == .seconds(2))
    }

    @Test func hostOnly() throws {
        let configuration = try RedisConfiguration(url: "redis://cache.internal")
        #expect(configuration.host == "cache.internal")
        #expect(configuration.port == 6379)
        #expect(configuration.password == nil)
        #expect(configuration.username == nil)
        #expect(configuration.database == 0)
    }

    @Test func passwordPortAndDatabase() throws {
        let configuration = try RedisConfiguration(url: "redis://:secret@127.0.0.1:6380/3")
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 6380)
        #expect(configuration.password == "secret")
        #expect(configuration.username == nil)
        #expect(configuration.database == 3)
    }

    @Test func usernameAndPercentEncodedPassword() throws {
        let configuration = try RedisConfiguration(url: "REDIS://alice:p%40ss%3Aword@redis:7000/15")
        #expect(configuration.username == "alice")
        #expect(configuration.password == "p@ss:word")
        #expect(configuration.host == "redis")
        #expect(configuration.port == 7000)
        #expect(configuration.database == 15)
    }

    @Test func passwordWithoutColonAndTrailingSlash() throws {
        let configuration = try RedisConfiguration(url: "redis://secret@localhost/")
        #expect(configuration.password == "secret")
        #expect(configuration.username == nil)
        #expect(configuration.host == "localhost")
        #expect(configuration.database == 0)
    }

    @Test func ipv6() throws {
        let configuration = try RedisConfiguration(url: "redis://[::1]:6390/2")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 6390)
        #expect(configuration.database == 2)
        #expect(try RedisConfiguration(url: "redis://[::1]").port == 6379)
    }

    @Test(arguments: [
        "",
        "localhost:6379",
        "http://localhost",
        "rediss://localhost",
        "redis://",
        "redis://:6379",
        "redis://localhost:",
        "redis://localhost:0",
        "redis://localhost:65536",
        "redis://localhost:port",
        "redis://localhost/db",
        "redis://localhost/-1",
        "redis://localhost/1/2",
        "redis://localhost?db=1",
        "redis://[::1",
        "redis://[::1]x",
        "redis://:bad%zz@localhost",
    ])
    func rejectsBadURLs(url: String) {
        #expect {
            _ = try RedisConfiguration(url: url)
        } throws: { error in
            guard let error = error as? RedisError, case .invalidURL = error else { return false }
            return true
        }
    }
}
