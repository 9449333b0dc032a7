import Foundation

/// A ``PlatformClient`` over a folder, so a tenant works with no network (the `demo`
/// tenant of `make run`). Layout (see `Deploy/demo/README.md`):
///
///     {id}/miniapp.json                    PlatformMiniAppInfo of the latest published version
///     {id}/{versionId}/manifest.json       bundleManifest (permissions, metadata)
///     {id}/{versionId}/manifest.{lang}.json  optional translation
///     {id}/{versionId}/files/…             the files (listed as demo://{id}/{versionId}/…)
///     {id}/{versionId}/signature.json      optional {"signature","publicKeyId"}
///     keys/{publicKeyId}.json              PlatformPublicKey
///     previews/{code}.json                 PlatformPreview
public struct LocalDirectoryPlatform: PlatformClient {
    public init() {}

    public func listMiniApps(
        _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        let root = try root(target)
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return ids.sorted().compactMap { id in
            try? read(PlatformMiniAppInfo.self, root.appendingPathComponent(id).appendingPathComponent("miniapp.json"))
        }
    }

    public func miniAppInfo(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        try await listMiniApps(target, deadline: deadline).filter { $0.id == id }
    }

    public func fileManifest(
        id: String, versionID: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformFileManifest {
        let version = try folder(target, id, versionID)
        let filesRoot = version.appendingPathComponent("files")
        guard let enumerator = FileManager.default.enumerator(atPath: filesRoot.path) else {
            throw UpstreamError.notFound
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: filesRoot.appendingPathComponent(relative).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append("demo://\(id)/\(versionID)/\(relative)")
            }
        }
        struct Signed: Decodable { let signature: String; let publicKeyId: String }
        let signed = try? read(Signed.self, version.appendingPathComponent("signature.json"))
        return PlatformFileManifest(
            files: files.sorted(), publicKeyID: signed?.publicKeyId, signature: signed?.signature)
    }

    public func metadata(
        id: String, versionID: String, lang: String?, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformMetadata {
        let version = try folder(target, id, versionID)
        if let lang,
            let localized = try? read(PlatformMetadata.self, version.appendingPathComponent("manifest.\(lang).json"))
        {
            return localized
        }
        return try read(PlatformMetadata.self, version.appendingPathComponent("manifest.json"))
    }

    public func preview(
        code: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPreview {
        try read(
            PlatformPreview.self,
            try root(target).appendingPathComponent("previews").appendingPathComponent(Self.safe(code) + ".json"))
    }

    public func publicKey(
        id: String, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey {
        try read(
            PlatformPublicKey.self,
            try root(target).appendingPathComponent("keys").appendingPathComponent(Self.safe(id) + ".json"))
    }

    public func download(
        _ url: String, maxBytes: Int, _ target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        guard url.hasPrefix("demo://") else { throw UpstreamError.notFound }
        let parts = url.dropFirst("demo://".count).split(separator: "/", maxSplits: 2).map(String.init)
        guard parts.count == 3, !parts[2].split(separator: "/").contains("..") else { throw UpstreamError.notFound }
        let file = try folder(target, parts[0], parts[1]).appendingPathComponent("files").appendingPathComponent(
            parts[2])
        guard let data = FileManager.default.contents(atPath: file.path) else { throw UpstreamError.notFound }
        guard data.count <= maxBytes else { throw UpstreamError.malformed("file larger than \(maxBytes) bytes") }
        return Array(data)
    }

    private func root(_ target: PlatformTarget) throws -> URL {
        guard let directory = target.localDirectory else { throw UpstreamError.notConfigured }
        return URL(fileURLWithPath: directory, isDirectory: true)
    }

    private func folder(_ target: PlatformTarget, _ id: String, _ versionID: String) throws -> URL {
        try root(target).appendingPathComponent(Self.safe(id)).appendingPathComponent(Self.safe(versionID))
    }

    /// Path components never climb out of the catalog.
    static func safe(_ component: String) -> String {
        component == "." || component == ".." || component.contains("/") ? "_" : component
    }

    private func read<T: Decodable>(_ type: T.Type, _ url: URL) throws -> T {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw UpstreamError.notFound }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw UpstreamError.malformed("\(url.lastPathComponent)")
        }
    }
}
