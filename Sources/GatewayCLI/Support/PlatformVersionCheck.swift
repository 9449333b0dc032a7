import AsyncHTTPClient
import Foundation
import GatewayCore

/// Whether the platform knows the versions a release action names: asked for each version's
/// metadata, unless the mini app's policy already names it. A version the platform answers 404
/// for is refused (exit 2, nothing written). Tenant `demo` without a platform URL is answered by
/// its local catalog folder (`GATEWAY_DEMO_CATALOG`, `Deploy/demo` by default, as the gateway
/// serves it), so the folder decides. A platform that cannot be reached, or a tenant with no
/// platform at all, only warns.
enum PlatformVersionCheck {
    static func check(
        _ versions: [String], miniAppID: String, tenant: Tenant, policy: ReleasePolicy?, context: CLIContext
    ) async throws {
        let known = policy.map(Self.versions(of:)) ?? []
        let asked = versions.filter { !known.contains($0) }
        guard !asked.isEmpty else { return }
        if let local = localCatalog(of: tenant, environment: context.environment) {
            try await ask(
                asked, miniAppID: miniAppID, of: LocalDirectoryPlatform(),
                PlatformTarget(tenantID: tenant.id, localDirectory: local), context: context)
        } else if let remote = try? PlatformTarget(tenant: tenant) {
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                try await ask(asked, miniAppID: miniAppID, of: HTTPPlatformClient(client: http), remote, context: context)
            } catch {
                try? await http.shutdown()
                throw error
            }
            try? await http.shutdown()
        } else {
            context.printError("warning: tenant \(tenant.id) has no platform configured; versions not checked")
        }
    }

    private static func ask(
        _ versions: [String], miniAppID: String, of platform: any PlatformClient, _ target: PlatformTarget,
        context: CLIContext
    ) async throws {
        for version in versions {
            do {
                _ = try await platform.metadata(
                    id: miniAppID, versionID: version, lang: nil, target, deadline: .now + .seconds(5))
            } catch UpstreamError.notFound {
                throw CLIError.invalid(
                    "neither the platform nor the release policy knows version \(version) of mini app \(miniAppID)")
            } catch {
                context.printError("warning: could not ask the platform about version \(version) (\(error)); not checked")
            }
        }
    }

    /// Every version a policy names: stable, the candidate, withdrawn ones and their stand-ins.
    static func versions(of policy: ReleasePolicy) -> Set<String> {
        var versions = Set(policy.withdrawn.flatMap { [$0.version] + ($0.useInstead.map { [$0] } ?? []) })
        if let stable = policy.stable { versions.insert(stable) }
        if let candidate = policy.candidate?.version { versions.insert(candidate) }
        return versions
    }

    /// The catalog folder the gateway serves as `demo`'s platform while it has none (the
    /// gateway's rule: `GATEWAY_DEMO_CATALOG`, empty = off, relative to the working directory).
    static func localCatalog(of tenant: Tenant, environment: [String: String]) -> String? {
        guard tenant.id == DemoTenant.id, tenant.platform.baseURL == nil else { return nil }
        let path = environment["GATEWAY_DEMO_CATALOG"] ?? "Deploy/demo"
        guard !path.isEmpty else { return nil }
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        return url.standardizedFileURL.path
    }
}
