import Foundation
import Logging
import Testing
@testable import GatewayCore

@Suite struct TenantDirectoryTests {
    /// The reload poll is 50 ms; 10 s of slack is for a loaded 2-core CI machine.
    static let reloadLimit: Duration = .seconds(10)

    @Test func seesChangesFromAnotherStoreInstanceWithinTwoSeconds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let serverStore = try Fixtures.store(folder)
        let ctlStore = try Fixtures.store(folder)
        try await ctlStore.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let directory = TenantDirectory(
            store: serverStore, pollInterval: .milliseconds(50), logger: Logger(label: "test"))
        try await directory.reload()
        #expect(directory.tenant("acme")?.displayName == "Acme")
        #expect(directory.tenant("nope") == nil)

        let poller = Task { try await directory.run() }
        defer { poller.cancel() }

        try await ctlStore.update(id: "acme", actor: "t") { $0.displayName = "Acme 2" }
        #expect(await eventually(within: Self.reloadLimit) { directory.tenant("acme")?.displayName == "Acme 2" })

        try await ctlStore.create(Tenant(id: "beta", displayName: "Beta"), actor: "t")
        #expect(await eventually(within: Self.reloadLimit) { directory.tenants.map(\.id) == ["acme", "beta"] })

        try await ctlStore.delete(id: "acme", actor: "t")
        #expect(await eventually(within: Self.reloadLimit) { directory.tenant("acme") == nil })
        #expect(directory.tenants.map(\.id) == ["beta"])

        poller.cancel()
        try await poller.value
    }
}
