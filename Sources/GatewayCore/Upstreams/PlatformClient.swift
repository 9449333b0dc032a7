/// The tenant's mini-app platform, as the public SDKs use it (the RAS API of the Rakuten
/// MiniApp SDK; `Tests/GatewayServerTests/FakePlatform.swift` serves the same paths). Implementations: ``HTTPPlatformClient`` (the real API),
/// ``LocalDirectoryPlatform`` (a catalog folder, for the offline demo tenant),
/// ``ResilientPlatformClient`` (retries, breaker, bulkhead around another client) and
/// ``RoutingPlatformClient`` (local catalogs vs. the network).
///
/// Every call is a GET bounded by `deadline`; failures are ``UpstreamError``s.
public protocol PlatformClient: Sendable {
    /// `GET /host/{P}/miniapps[/preview]`.
    func listMiniApps(_ target: PlatformTarget, deadline: ContinuousClock.Instant) async throws -> [PlatformMiniAppInfo]
    /// `GET /host/{P}/miniapps[/preview]?miniAppId={id}`; empty = no published version.
    func miniAppInfo(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo]
    /// `GET /host/{P}/miniapp/{id}/version/{ver}[/preview]/manifest` + `Signature` header.
    func fileManifest(
        id: String, versionID: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformFileManifest
    /// `GET /host/{P}/miniapp/{id}/version/{ver}[/preview]/metadata[?lang=]`.
    func metadata(
        id: String, versionID: String, lang: String?, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformMetadata
    /// `GET /host/{P}/preview-codes/{code}`.
    func preview(
        code: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPreview
    /// `GET /keys/{publicKeyId}`.
    func publicKey(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey
    /// Downloads one bundle file (the zip) as bytes, at most `maxBytes`.
    func download(
        _ url: String, maxBytes: Int, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [UInt8]
}
