import Foundation

/// The JSON bodies of the mini-app operations, exactly as `OpenAPI/gateway.yaml`
/// declares them. Encoded once per cache fill; the bytes are then served as stored.
public enum MiniAppAnswers {
    public struct MiniApp: Codable, Sendable, Equatable {
        public var id: String
        public var displayName: String
        public var icon: String?
        public var version: PlatformMiniAppInfo.Version
        public var promotionalImageUrl: String?
        public var promotionalText: String?
        /// `platform` or `provisioning`.
        public var source: String?
        /// `native` or `web` (provisioning only).
        public var type: String?
        public var description: String?
        /// What a GeneXus client needs to load a provisioned app (provisioning only).
        public var entryPoint: String?
        public var metadataUrl: String?
        public var servicesUrl: String?
        public var signature: String?

        public init(_ info: PlatformMiniAppInfo) {
            id = info.id
            displayName = info.displayName
            icon = info.icon
            version = info.version
            promotionalImageUrl = info.promotionalImageUrl
            promotionalText = info.promotionalText
            source = "platform"
        }

        public init(_ app: ProvisioningMiniApp) {
            id = app.id
            displayName = app.name
            icon = app.icon
            version = .init(versionTag: String(app.version), versionId: String(app.version))
            promotionalImageUrl = app.banner
            promotionalText = nil
            source = "provisioning"
            type = app.kind.rawValue
            description = app.description
            entryPoint = app.entryPoint
            metadataUrl = app.metadataURL
            servicesUrl = app.servicesURL
            signature = app.signature
        }
    }

    public struct MiniAppList: Codable, Sendable, Equatable {
        public var items: [MiniApp]
        public var next: Int?
    }

    public struct Manifest: Codable, Sendable, Equatable {
        public var miniAppId: String
        public var versionId: String
        public var lang: String?
        public var requiredPermissions: [PlatformMetadata.Permission]
        public var optionalPermissions: [PlatformMetadata.Permission]
        public var accessTokenPermissions: [PlatformMetadata.AccessTokenPermission]
        public var customMetaData: [String: String]
    }

    public struct Verdict: Codable, Sendable, Equatable {
        public enum Status: String, Codable, Sendable {
            case valid, invalid, unsigned
        }

        public var status: Status
        public var detail: String?
    }

    public struct Bundle: Codable, Sendable, Equatable {
        public var miniAppId: String
        public var versionId: String
        public var files: [String]
        public var signature: String?
        public var publicKeyId: String?
        public var verification: Verdict
    }

    public struct Preview: Codable, Sendable, Equatable {
        public var miniApp: MiniApp
        /// Only the host's id: the platform's host object also carries its secret key.
        public var host: PlatformPreviewHost
    }

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
