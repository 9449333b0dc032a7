import Foundation

extension MiniAppService {
    /// Files, signature and the gateway's verdict for one version. The zip is downloaded
    /// once per cache fill; when the tenant requires verification, anything but a valid
    /// signature is the (cached) refusal ``MiniAppError/invalidSignature``.
    public func bundle(
        tenant: Tenant, id: String, versionID: String, deadline: ContinuousClock.Instant
    ) async throws -> CachedAnswer {
        let key = Self.bundleKey(tenant, id: id, versionID: versionID)
        return try await cached(key, policy: .ttl(seconds: tenant.cacheTTLs.manifestSeconds)) {
            let target = try platformTarget(tenant)
            let files = try await platform.fileManifest(id: id, versionID: versionID, target, deadline: deadline)
            let verdict = try await verify(
                files, versionID: versionID, tenant: tenant, target: target, deadline: deadline)
            if tenant.platform.requireSignatureVerification, verdict.status != .valid {
                return NegativeAnswer.invalidSignature.cached
            }
            let answer = MiniAppAnswers.Bundle(
                miniAppId: id, versionId: versionID, files: files.files,
                signature: files.signature, publicKeyId: files.publicKeyID, verification: verdict
            )
            return .init(status: 200, body: try MiniAppAnswers.encode(answer))
        }
    }

    private func verify(
        _ files: PlatformFileManifest, versionID: String, tenant: Tenant, target: PlatformTarget,
        deadline: ContinuousClock.Instant
    ) async throws -> MiniAppAnswers.Verdict {
        guard let signature = files.signature, !signature.isEmpty, let keyID = files.publicKeyID, !keyID.isEmpty else {
            return .init(status: .unsigned, detail: "The platform sent no signature or public key id.")
        }
        guard let zipURL = files.files.first(where: { $0.lowercased().hasSuffix(".zip") }) ?? files.files.first else {
            return .init(status: .invalid, detail: "The version lists no files.")
        }
        guard let key = try await publicKey(keyID, tenant: tenant, target: target, deadline: deadline) else {
            return .init(status: .invalid, detail: "The platform does not know the public key.")
        }
        let zip = try await platform.download(zipURL, maxBytes: maxBundleBytes, target, deadline: deadline)
        return SignatureVerifier.verify(signature: signature, ecKey: key.ecKey, versionID: versionID, zip: zip)
    }

    /// The platform key, cached for the tenant's public-key TTL; nil when unknown (404).
    func publicKey(
        _ id: String, tenant: Tenant, target: PlatformTarget, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey? {
        let key = CacheKey.answer(tenant: tenant, kind: "pubkey", [id])
        let answer = try await answers.answer(key, policy: .ttl(seconds: tenant.cacheTTLs.publicKeySeconds)) {
            do {
                let fetched = try await platform.publicKey(id: id, target, deadline: deadline)
                return .init(status: 200, body: try MiniAppAnswers.encode(fetched))
            } catch UpstreamError.notFound {
                return .init(status: 404, body: Array("public_key_not_found".utf8))
            }
        }
        guard answer.status == 200 else { return nil }
        return try? JSONDecoder().decode(PlatformPublicKey.self, from: Data(answer.body))
    }
}
