import RedisClient
import Testing

extension IntegrationTests {
    /// A TLS-only redis-server with a certificate from a throwaway authority.
    @Suite("TLS (rediss://)")
    struct TLSTests {
        @Test func talksTLSAndVerifiesTheServer() async throws {
            let certificates = try TestCertificates.make()
            let server = try await RedisTestServer.start(extraArguments: ["--requirepass", "secret"], tls: certificates)
            let base = "rediss://:secret@localhost:\(server.port)/2"

            let trusted = RedisClient(
                configuration: try RedisConfiguration(url: base + "?tls_ca_file=\(certificates.authority)"))
            #expect(try await trusted.set("tls:key", "sealed"))
            #expect(try await trusted.getString("tls:key") == "sealed")
            // By address, the certificate's name is accepted when asked for explicitly.
            let byAddress = "rediss://:secret@127.0.0.1:\(server.port)/2?tls_ca_file=\(certificates.authority)"
            let named = RedisClient(
                configuration: try RedisConfiguration(url: byAddress + "&tls_server_name=localhost"))
            #expect(try await named.getString("tls:key") == "sealed")

            // The system roots do not know the authority; the address and a wrong name are not in the
            // certificate; plain text is refused.
            let unnamed = RedisClient(configuration: try RedisConfiguration(url: byAddress))
            let untrusted = RedisClient(configuration: try RedisConfiguration(url: base))
            let misnamed = RedisClient(
                configuration: try RedisConfiguration(
                    url: base + "?tls_ca_file=\(certificates.authority)&tls_server_name=redis.example.com"))
            let plain = RedisClient(
                configuration: try RedisConfiguration(url: "redis://:secret@127.0.0.1:\(server.port)/2"))
            for (name, client) in [
                ("untrusted", untrusted), ("unnamed", unnamed), ("misnamed", misnamed), ("plain", plain),
            ] {
                await #expect(throws: RedisError.self, "\(name)") { try await client.getString("tls:key") }
            }
            let missingAuthority = RedisClient(
                configuration: try RedisConfiguration(url: base + "?tls_ca_file=/nonexistent/ca.pem"))
            await #expect {
                try await missingAuthority.ping()
            } throws: { error in
                guard case RedisError.connectionFailed(let message) = error else { return false }
                return message.contains("TLS setup failed")
            }
            for client in [trusted, named, untrusted, unnamed, misnamed, plain, missingAuthority] {
                await client.shutdown()
            }
            server.kill()
        }
    }
}
