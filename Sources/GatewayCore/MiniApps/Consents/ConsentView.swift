import Foundation

/// One permission as the permission screen shows it.
public struct ConsentItem: Sendable, Equatable, Codable {
    public var name: String
    /// Title from the ``CustomPermission`` catalogue.
    public var title: String
    /// What the permission allows, from the catalogue.
    public var description: String
    /// The manifest's (localized) reason.
    public var reason: String?
    public var required: Bool
    /// nil while the user has not answered.
    public var status: ConsentStatus?
    public var updatedAt: Date?

    public init(
        name: String, title: String, description: String, reason: String?, required: Bool, status: ConsentStatus?,
        updatedAt: Date?
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.reason = reason
        self.required = required
        self.status = status
        self.updatedAt = updatedAt
    }
}

/// The user's consents for one mini app, read against its manifest.
public struct ConsentView: Sendable, Equatable, Codable {
    public var miniAppID: String
    /// Declared permissions, required first, in manifest order.
    public var items: [ConsentItem]
    /// Answers stored for permissions the current manifest no longer declares.
    public var undeclared: [ConsentRecord]
    /// True when every required permission is ALLOWED.
    public var mayLaunch: Bool
    public var consentVersion: Int64
    public var lastUsedAt: Date?

    /// Combines stored answers with a manifest.
    public init(consents: MiniAppConsents, manifest: MiniAppPermissionManifest) {
        let required = manifest.required.map { ($0, true) }
        var seen = Set<String>()
        let declared = (required + manifest.optional.map { ($0, false) }).filter { seen.insert($0.0.name).inserted }
        items = declared.map { permission, isRequired in
            let known = CustomPermission(rawValue: permission.name)
            let record = consents.records.first { $0.permission == permission.name }
            return ConsentItem(
                name: permission.name, title: known?.title ?? permission.name, description: known?.summary ?? "",
                reason: permission.reason, required: isRequired, status: record?.status, updatedAt: record?.updatedAt
            )
        }
        undeclared = consents.records.filter { !seen.contains($0.permission) }
        mayLaunch = items.allSatisfy { !$0.required || $0.status == .allowed }
        miniAppID = consents.miniAppID
        consentVersion = consents.version
        lastUsedAt = consents.lastUsedAt
    }
}

/// One entry of the user's mini-app list.
public struct UserMiniAppEntry: Sendable, Equatable, Codable {
    /// The stored answers.
    public var consents: MiniAppConsents
    /// The answers read against the manifest, when the manifest was available.
    public var view: ConsentView?

    public init(consents: MiniAppConsents, view: ConsentView?) {
        self.consents = consents
        self.view = view
    }
}
