/// Where and as whom the gateway calls one tenant's mini-app platform.
///
/// Built from the tenant snapshot per request; the subscription key is held as a
/// ``SecretValue`` and only revealed into the `apiKey` header.
public struct PlatformTarget: Sendable {
    public let tenantID: String
    /// Base URL without a trailing slash.
    public let baseURL: String
    public let projectID: String
    public let subscriptionKey: SecretValue
    public let previewMode: Bool
    /// Set for a catalog served by ``LocalDirectoryPlatform`` from this folder.
    public let localDirectory: String?

    /// - Throws: ``UpstreamError/notConfigured`` when the tenant has no platform.
    public init(tenant: Tenant) throws {
        guard let base = tenant.platform.baseURL, !base.isEmpty,
              let project = tenant.platform.projectID, !project.isEmpty
        else { throw UpstreamError.notConfigured }
        tenantID = tenant.id
        baseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        projectID = project
        subscriptionKey = tenant.platform.subscriptionKey ?? SecretValue("")
        previewMode = tenant.platform.previewMode
        localDirectory = nil
    }

    /// A tenant served from a local catalog folder (the `demo` tenant of `make run`).
    public init(tenantID: String, localDirectory: String) {
        self.tenantID = tenantID
        baseURL = "demo://" + tenantID
        projectID = tenantID
        subscriptionKey = SecretValue("")
        previewMode = false
        self.localDirectory = localDirectory
    }

    /// `ras-{subscriptionKey}`, the prefix added only when missing.
    public var apiKeyHeader: String {
        let key = subscriptionKey.plaintext
        return key.hasPrefix("ras-") ? key : "ras-" + key
    }
}
