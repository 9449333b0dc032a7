import Foundation
import Testing
@testable import GatewayCore

@Suite struct ConcurrentWriterTests {
    @Test(arguments: StoreBackend.available) func separateStoresNeverLoseUpdates(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let first = database.stores.tenants
        try await first.create(Tenant(id: "acme", displayName: "Acme"), actor: "setup")
        let writers = [first, try await database.another().tenants, try await database.another().tenants]
        let reader = try await database.another().tenants
        let updatesPerWriter = 50

        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    for round in 0 ..< updatesPerWriter {
                        try await writer.update(id: "acme", actor: "writer-\(index)") {
                            $0.displayName = "w\(index)-r\(round)"
                            $0.cacheRules.maxCount += 1
                        }
                    }
                    return 0
                }
            }
            group.addTask {
                var reads = 0
                var lastVersion: Int64 = 0
                while lastVersion < Int64(1 + writers.count * updatesPerWriter) {
                    try Task.checkCancellation()
                    let tenant = try #require(try await reader.tenant(id: "acme"))
                    #expect(tenant.configVersion >= lastVersion)
                    lastVersion = tenant.configVersion
                    reads += 1
                }
                return reads
            }
            for try await _ in group {}
        }

        let total = writers.count * updatesPerWriter
        let final = try #require(try await reader.tenant(id: "acme"))
        #expect(final.configVersion == Int64(1 + total))
        #expect(final.cacheRules.maxCount == total)
        let audit = try await reader.auditLog(tenantID: "acme", limit: 10_000)
        #expect(audit.count == 1 + total)
        #expect(Set(audit.map(\.configVersion)).count == 1 + total)
        #expect(try await reader.changeToken() == Int64(1 + total))
    }
}
