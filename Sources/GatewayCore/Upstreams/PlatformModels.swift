/// A mini app as the platform lists it (`MiniAppInfo` of the platform contract).
public struct PlatformMiniAppInfo: Codable, Sendable, Equatable {
    public struct Version: Codable, Sendable, Equatable {
        public var versionTag: String
        public var versionId: String

        public init(versionTag: String, versionId: String) {
            self.versionTag = versionTag
            self.versionId = versionId
        }
    }

    public var id: String
    public var displayName: String
    public var icon: String?
    public var version: Version
    public var promotionalImageUrl: String?
    public var promotionalText: String?

    public init(
        id: String, displayName: String, icon: String? = nil, version: Version, promotionalImageUrl: String? = nil,
        promotionalText: String? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.icon = icon
        self.version = version
        self.promotionalImageUrl = promotionalImageUrl
        self.promotionalText = promotionalText
    }
}

/// The files of one version and how they are signed.
public struct PlatformFileManifest: Sendable, Equatable {
    /// File URLs (`manifest` on the wire).
    public var files: [String]
    public var publicKeyID: String?
    /// Base64 DER ECDSA signature from the `Signature` response header.
    public var signature: String?

    public init(files: [String], publicKeyID: String?, signature: String?) {
        self.files = files
        self.publicKeyID = publicKeyID
        self.signature = signature
    }
}

/// `bundleManifest` of the metadata endpoint.
public struct PlatformMetadata: Codable, Sendable, Equatable {
    public struct Permission: Codable, Sendable, Equatable {
        public var name: String
        public var reason: String?

        public init(name: String, reason: String? = nil) {
            self.name = name
            self.reason = reason
        }
    }

    public struct AccessTokenPermission: Codable, Sendable, Equatable {
        public var audience: String
        public var scopes: [String]

        public init(audience: String, scopes: [String]) {
            self.audience = audience
            self.scopes = scopes
        }
    }

    public var reqPermissions: [Permission]?
    public var optPermissions: [Permission]?
    public var accessTokenPermissions: [AccessTokenPermission]?
    /// The developer's free-form members (`termsLink`, `privacyPolicyLink`, `fileSizeInMb`,
    /// ...). The SDKs read them as text, so numbers and booleans pass as their JSON text and
    /// nested values as compact JSON; nothing is dropped.
    public var customMetaData: [String: String]?

    private enum CodingKeys: String, CodingKey {
        case reqPermissions, optPermissions, accessTokenPermissions, customMetaData
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reqPermissions = try c.decodeIfPresent([Permission].self, forKey: .reqPermissions)
        optPermissions = try c.decodeIfPresent([Permission].self, forKey: .optPermissions)
        accessTokenPermissions = try c.decodeIfPresent([AccessTokenPermission].self, forKey: .accessTokenPermissions)
        customMetaData = try c.decodeIfPresent([String: JSONValue].self, forKey: .customMetaData)?.compactMapValues(
            Self.text)
    }

    /// A custom member as the SDKs' `[String: String]` holds it; nil for JSON null.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): s
        case .null: nil
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .object, .array: (try? value.encoded()).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    public init(
        reqPermissions: [Permission]? = nil, optPermissions: [Permission]? = nil,
        accessTokenPermissions: [AccessTokenPermission]? = nil, customMetaData: [String: String]? = nil
    ) {
        self.reqPermissions = reqPermissions
        self.optPermissions = optPermissions
        self.accessTokenPermissions = accessTokenPermissions
        self.customMetaData = customMetaData
    }
}

/// What a preview code resolves to.
///
/// The platform's `host` object also carries the host's subscription key
/// (`subscriptionKey`; the iOS SDK decodes `subscriptionkey`). Only the members typed
/// here are decoded, so the key never enters the gateway's answers.
public struct PlatformPreview: Codable, Sendable, Equatable {
    public var miniapp: PlatformMiniAppInfo
    public var host: PlatformPreviewHost

    public init(miniapp: PlatformMiniAppInfo, host: PlatformPreviewHost) {
        self.miniapp = miniapp
        self.host = host
    }
}

/// The host a preview code is for: its id, nothing secret.
public struct PlatformPreviewHost: Codable, Sendable, Equatable {
    public var id: String?

    public init(id: String?) {
        self.id = id
    }
}

/// A platform signing key (`/keys/{id}`); `ecKey` is base64 of the uncompressed P-256 point.
public struct PlatformPublicKey: Codable, Sendable, Equatable {
    public var id: String
    public var ecKey: String
    public var pemKey: String?

    public init(id: String, ecKey: String, pemKey: String? = nil) {
        self.id = id
        self.ecKey = ecKey
        self.pemKey = pemKey
    }
}
