/// Sends calls for local catalogs to ``LocalDirectoryPlatform`` and the rest to `remote`.
public struct RoutingPlatformClient: PlatformClient {
    private let remote: any PlatformClient
    private let local: any PlatformClient

    public init(remote: any PlatformClient, local: any PlatformClient = LocalDirectoryPlatform()) {
        self.remote = remote
        self.local = local
    }

    private func pick(_ target: PlatformTarget) -> any PlatformClient {
        target.localDirectory == nil ? remote : local
    }

    public func listMiniApps(
        _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        try await pick(target).listMiniApps(target, deadline: deadline)
    }

    public func miniAppInfo(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        try await pick(target).miniAppInfo(id: id, target, deadline: deadline)
    }

    public func fileManifest(
        id: String, versionID: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformFileManifest {
        try await pick(target).fileManifest(id: id, versionID: versionID, target, deadline: deadline)
    }

    public func metadata(
        id: String, versionID: String, lang: String?, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformMetadata {
        try await pick(target).metadata(id: id, versionID: versionID, lang: lang, target, deadline: deadline)
    }

    public func preview(
        code: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPreview {
        try await pick(target).preview(code: code, target, deadline: deadline)
    }

    public func publicKey(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey {
        try await pick(target).publicKey(id: id, target, deadline: deadline)
    }

    public func download(
        _ url: String, maxBytes: Int, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        try await pick(target).download(url, maxBytes: maxBytes, target, deadline: deadline)
    }
}
