import AsyncHTTPClient
import Foundation

/// ``PlatformClient`` over HTTP, following the platform contract exactly: paths under
/// `/host/{projectId}/...`, header `apiKey: ras-{key}`, no `Authorization`, `/preview`
/// variants in preview mode, `lang` on metadata, `Signature` on the file manifest.
public struct HTTPPlatformClient: PlatformClient {
    private let http: UpstreamHTTP
    private let maxJSONBytes: Int

    /// - Parameter client: the process's shared, fan-out tuned client.
    public init(client: HTTPClient, maxJSONBytes: Int = 4 << 20) {
        http = UpstreamHTTP(client: client)
        self.maxJSONBytes = maxJSONBytes
    }

    private struct FileManifestBody: Decodable {
        let manifest: [String]
        let publicKeyId: String?
    }

    private struct MetadataBody: Decodable {
        let bundleManifest: PlatformMetadata
    }

    public func listMiniApps(
        _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        let reply = try await get(target, try listPath(target), deadline: deadline)
        return try UpstreamHTTP.decode([PlatformMiniAppInfo].self, from: reply.body)
    }

    public func miniAppInfo(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        let reply = try await get(target, try listPath(target) + "?miniAppId=" + Self.escape(id), deadline: deadline)
        return try UpstreamHTTP.decode([PlatformMiniAppInfo].self, from: reply.body)
    }

    public func fileManifest(
        id: String, versionID: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformFileManifest {
        let reply = try await get(target, try versionPath(target, id, versionID) + "/manifest", deadline: deadline)
        let body = try UpstreamHTTP.decode(FileManifestBody.self, from: reply.body)
        return PlatformFileManifest(
            files: body.manifest, publicKeyID: body.publicKeyId, signature: reply.headers.first(name: "Signature"))
    }

    public func metadata(
        id: String, versionID: String, lang: String?, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformMetadata {
        var path = try versionPath(target, id, versionID) + "/metadata"
        if let lang { path += "?lang=" + Self.escape(lang) }
        let reply = try await get(target, path, deadline: deadline)
        return try UpstreamHTTP.decode(MetadataBody.self, from: reply.body).bundleManifest
    }

    public func preview(
        code: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPreview {
        let reply = try await get(
            target,
            "/host/\(try UpstreamPathSegment.encode(target.projectID))/preview-codes/\(try UpstreamPathSegment.encode(code))",
            deadline: deadline)
        return try UpstreamHTTP.decode(PlatformPreview.self, from: reply.body)
    }

    public func publicKey(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey {
        let reply = try await get(target, "/keys/\(try UpstreamPathSegment.encode(id))", deadline: deadline)
        return try UpstreamHTTP.decode(PlatformPublicKey.self, from: reply.body)
    }

    public func download(
        _ url: String, maxBytes: Int, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        // The subscription key goes only to the platform's own host, never to a CDN.
        let sameHost = URL(string: url)?.host == URL(string: target.baseURL)?.host
        let headers = sameHost ? [("apiKey", target.apiKeyHeader)] : []
        return try await http.get(url, headers: headers, maxBytes: maxBytes, deadline: deadline).body
    }

    private func get(
        _ target: PlatformTarget, _ path: String, deadline: ContinuousClock.Instant
    ) async throws -> UpstreamHTTP.Reply {
        try await http.get(
            target.baseURL + path, headers: [("apiKey", target.apiKeyHeader), ("Accept", "application/json")],
            maxBytes: maxJSONBytes, deadline: deadline)
    }

    private func listPath(_ target: PlatformTarget) throws -> String {
        "/host/\(try UpstreamPathSegment.encode(target.projectID))/miniapps" + (target.previewMode ? "/preview" : "")
    }

    private func versionPath(_ target: PlatformTarget, _ id: String, _ versionID: String) throws -> String {
        let segments = try [target.projectID, id, versionID].map(UpstreamPathSegment.encode)
        return "/host/\(segments[0])/miniapp/\(segments[1])/version/\(segments[2])"
            + (target.previewMode ? "/preview" : "")
    }

    /// A query value, percent-encoded.
    static func escape(_ component: String) -> String { URLQuery.encode(component) }
}
