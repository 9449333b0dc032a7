import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Redis dying mid-test never fails a request the upstream can answer")
struct RedisOutageTests {
    @Test("requests are answered from the upstream after redis-server is killed")
    func redisStopped() async throws {
        let redis = try await RedisProcess.start()
        let time = ManualClock(Date())
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(redisURL: redis.url, clock: time.clock) { harness, client, _ in
                let id = uniqueTenantID("redis")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                _ = try await client.getMiniAppManifest(path: path).ok
                await redis.kill()
                // At once: the near copy (1 s) or the upstream answers.
                _ = try await client.getMiniAppManifest(path: path).ok
                // Past the near copy's lifetime: only the upstream can answer...
                time.advance(by: .milliseconds(1_100))
                let before = fake.requests(matching: "/metadata").count
                for _ in 0..<20 {
                    _ = try await client.getMiniAppManifest(path: path).ok
                    _ = try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok
                }
                // ...once: the answer Redis could not store is kept in process while fresh,
                // so a hot key does not reach the platform on every request.
                #expect(fake.requests(matching: "/metadata").count == before + 1)
            }
        }
    }
}

/// A TCP port that was free a moment ago: the kernel's pick for a socket bound to port 0.
func freeTCPPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw CancellationError() }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard bound else { throw CancellationError() }
    return Int(UInt16(bigEndian: address.sin_port))
}
