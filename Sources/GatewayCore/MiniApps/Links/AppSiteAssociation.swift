import Foundation

/// Builds `/.well-known/apple-app-site-association` for one domain: universal links for
/// `/miniapp/*` and shared web credentials for the domain's app ids.
public enum AppSiteAssociation {
    /// The path pattern of mini-app deep links.
    public static let miniAppPathPattern = "/miniapp/*"

    struct Document: Encodable {
        struct AppLinks: Encodable {
            var apps: [String] = []
            var details: [Detail]
        }

        struct Detail: Encodable {
            var appIDs: [String]
            var components: [[String: String]]
            var paths: [String]
        }

        struct WebCredentials: Encodable {
            var apps: [String]
        }

        var applinks: AppLinks
        var webcredentials: WebCredentials
    }

    /// The JSON document (sorted keys) for `domain`. Both the current (`appIDs` +
    /// `components`) and the legacy (`paths`) applinks forms are present.
    public static func document(for domain: TenantDomain) throws -> Data {
        let detail = Document.Detail(
            appIDs: domain.appIDs, components: [["/": miniAppPathPattern]], paths: [miniAppPathPattern]
        )
        let document = Document(
            applinks: .init(details: domain.appIDs.isEmpty ? [] : [detail]),
            webcredentials: .init(apps: domain.appIDs)
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
