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
        "redis-sentinel://localhost:26379",
        "redis-sentinel://localhost:26379/",
        "redis-sentinel://a:1,,b:2/mymaster",
        "redis-sentinel://a:1/mymaster/x",
        "redis://localhost?tls_ca_file=/ca.pem",
        "rediss://localhost?sentinel_password=x",
        "rediss://localhost?tls_cert_file=/c.pem",
        "rediss://localhost?tls_ca_file=a&tls_ca_file=b",
        "redis://localhost#x",
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

    @Test func tls() throws {
        let configuration = try RedisConfiguration(
            url: "rediss://:pw@cache.example.com:6380/1?tls_ca_file=%2Fetc%2Fca.pem&tls_server_name=redis.internal")
        #expect(configuration.host == "cache.example.com")
        #expect(configuration.port == 6380)
        #expect(configuration.database == 1)
        #expect(configuration.tls == RedisTLSConfiguration(caFile: "/etc/ca.pem", serverName: "redis.internal"))
        #expect(try RedisConfiguration(url: "rediss://cache").tls == RedisTLSConfiguration())
        #expect(try RedisConfiguration(url: "redis://cache").tls == nil)
    }

    @Test func sentinel() throws {
        let configuration = try RedisConfiguration(
            url:
                "redis-sentinel://app:data%40pw@s1:26380,[::1],s3/my-master/4?sentinel_username=watch&sentinel_password=s%26pw"
        )
        #expect(
            configuration.sentinel
                == RedisSentinelConfiguration(
                    sentinels: [
                        RedisEndpoint(host: "s1", port: 26380), RedisEndpoint(host: "::1", port: 26379),
                        RedisEndpoint(host: "s3", port: 26379),
                    ],
                    masterName: "my-master", username: "watch", password: "s&pw"
                ))
        #expect(configuration.username == "app")
        #expect(configuration.password == "data@pw")
        #expect(configuration.database == 4)
        #expect(configuration.tls == nil)
        #expect(configuration.addressDescription == "master 'my-master' via sentinels s1:26380,[::1]:26379,s3:26379")
        #expect(try RedisConfiguration(url: "rediss-sentinel://s1/m").tls == RedisTLSConfiguration())
    }

    @Test func redactionHidesEveryPassword() {
        #expect(RedisConfiguration.redacted(url: "redis://:secret@h:1/0") == "redis://•••@h:1/0")
        #expect(RedisConfiguration.redacted(url: "redis-sentinel://u:p@a,b/m?sentinel_password=x&tls_ca_file=/c") ==
            "redis-sentinel://•••@a,b/m?sentinel_password=•••&tls_ca_file=/c")
        #expect(RedisConfiguration.redacted(url: "redis://h/0?x=a@b") == "redis://h/0?x=a@b")
    }
}
