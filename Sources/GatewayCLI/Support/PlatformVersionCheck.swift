import AsyncHTTPClient
import Foundation
import GatewayCore

/// Whether the tenant's platform knows the versions a release policy names: asked for each
/// version's metadata. A version the platform answers 404 for is refused (exit 2, nothing
/// written); a platform that cannot be reached (or a tenant without one) only warns.
enum PlatformVersionCheck {
    static func check(_ versions: [String], miniAppID: String, tenant: Tenant, context: CLIContext) async throws {
        guard !versions.isEmpty else { return }
        guard let target = try? PlatformTarget(tenant: tenant) else {
            context.printError("warning: tenant \(tenant.id) has no platform configured; versions not checked")
            return
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let platform = HTTPPlatformClient(client: http)
        var unknown: String?
        for version in versions {
            do {
                _ = try await platform.metadata(
                    id: miniAppID, versionID: version, lang: nil, target, deadline: .now + .seconds(5))
            } catch UpstreamError.notFound {
                unknown = version
                break
            } catch {
                context.printError("warning: could not ask the platform about version \(version) (\(error)); not checked")
            }
        }
        try? await http.shutdown()
        if let unknown {
            throw CLIError.invalid("the platform does not know version \(unknown) of mini app \(miniAppID)")
        }
    }
}
