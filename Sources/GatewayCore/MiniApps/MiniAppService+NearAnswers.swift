/// The stored answers of the hot reads, by key, and the copies this process may serve
/// without suspending: the edge's event-loop fast path asks these first, and anything they
/// cannot answer (no near copy, a negative answer) takes the full path.
extension MiniAppService {
    static func infoKey(_ tenant: Tenant, id: String) -> String {
        CacheKey.answer(tenant: tenant, kind: "info", [id])
    }

    static func manifestKey(_ tenant: Tenant, id: String, versionID: String, lang: String?) -> String {
        CacheKey.answer(tenant: tenant, kind: "manifest", [id, versionID, lang ?? ""])
    }

    static func bundleKey(_ tenant: Tenant, id: String, versionID: String) -> String {
        CacheKey.answer(tenant: tenant, kind: "bundle", [id, versionID])
    }

    /// `miniApp(tenant:id:deadline:)`'s answer when held in process (200 only); never suspends.
    public func nearMiniApp(tenant: Tenant, id: String) -> CachedAnswer? {
        near(Self.infoKey(tenant, id: id))
    }

    /// `manifest(tenant:id:versionID:lang:deadline:)`'s answer when held in process (200 only).
    public func nearManifest(tenant: Tenant, id: String, versionID: String, lang: String?) -> CachedAnswer? {
        near(Self.manifestKey(tenant, id: id, versionID: versionID, lang: lang))
    }

    /// `bundle(tenant:id:versionID:deadline:)`'s answer when held in process (200 only).
    public func nearBundle(tenant: Tenant, id: String, versionID: String) -> CachedAnswer? {
        near(Self.bundleKey(tenant, id: id, versionID: versionID))
    }

    private func near(_ key: String) -> CachedAnswer? {
        guard let answer = answers.nearAnswer(key), answer.status == 200 else { return nil }
        return answer
    }
}
