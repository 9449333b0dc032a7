/// Wraps another ``PlatformClient`` in the tenant's ``UpstreamGuard`` (breaker,
/// bulkhead, retries with budget, deadline) for every call.
public struct ResilientPlatformClient: PlatformClient {
    private let base: any PlatformClient
    private let guards: UpstreamGuards

    public init(base: any PlatformClient, guards: UpstreamGuards) {
        self.base = base
        self.guards = guards
    }

    private func run<T: Sendable>(
        _ target: PlatformTarget, _ deadline: ContinuousClock.Instant, _ call: () async throws -> T
    ) async throws -> T {
        try await guards.guardFor(tenantID: target.tenantID, upstream: "platform").run(deadline: deadline, call)
    }

    public func listMiniApps(
        _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        try await run(target, deadline) { try await base.listMiniApps(target, deadline: deadline) }
    }

    public func miniAppInfo(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        try await run(target, deadline) { try await base.miniAppInfo(id: id, target, deadline: deadline) }
    }

    public func fileManifest(
        id: String, versionID: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformFileManifest {
        try await run(target, deadline) {
            try await base.fileManifest(id: id, versionID: versionID, target, deadline: deadline)
        }
    }

    public func metadata(
        id: String, versionID: String, lang: String?, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformMetadata {
        try await run(target, deadline) {
            try await base.metadata(id: id, versionID: versionID, lang: lang, target, deadline: deadline)
        }
    }

    public func preview(
        code: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPreview {
        try await run(target, deadline) { try await base.preview(code: code, target, deadline: deadline) }
    }

    public func publicKey(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey {
        try await run(target, deadline) { try await base.publicKey(id: id, target, deadline: deadline) }
    }

    public func download(
        _ url: String, maxBytes: Int, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        try await run(target, deadline) { try await base.download(url, maxBytes: maxBytes, target, deadline: deadline) }
    }
}
