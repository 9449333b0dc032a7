import Foundation
import Logging
import Testing
@testable import GatewayCore

@Suite struct TenantDirectoryTests {
    /// Polls `condition` every 20 ms for up to `limit` (10 s: the poll is 50 ms, the slack
    /// is for a loaded 2-core CI machine running the whole suite in parallel).
    func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test func seesChangesFromAnotherStoreInstanceWithinTwoSeconds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let serverStore = try Fixtures.store(folder)
        let ctlStore = try Fixtures.store(folder)
        try await ctlStore.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let directory = TenantDirectory(store: serverStore, pollInterval: .milliseconds(50), logger: Logger(label: "test"))
        try await directory.reload()
        #expect(directory.tenant("acme")?.displayName == "Acme")
        #expect(directory.tenant("nope") == nil)

        let poller = Task { try await directory.run() }
        defer { poller.cancel() }

        try await ctlStore.update(id: "acme", actor: "t") { $0.displayName = "Acme 2" }
        #expect(try await eventually { directory.tenant("acme")?.displayName == "Acme 2" })

        try await ctlStore.create(Tenant(id: "beta", displayName: "Beta"), actor: "t")
        #expect(try await eventually { directory.tenants.map(\.id) == ["acme", "beta"] })

        try await ctlStore.delete(id: "acme", actor: "t")
        #expect(try await eventually { directory.tenant("acme") == nil })
        #expect(directory.tenants.map(\.id) == ["beta"])

        poller.cancel()
        try await poller.value
    }
}
