import Foundation

/// One analytics event as a client sends it, before validation. Either an SDK lifecycle
/// event (`name`, e.g. `mini_app_open`) or a mini-app event (`eventType`, `actionType`, ...).
public struct AnalyticsEventInput: Sendable, Equatable, Codable {
    public var name: String?
    public var miniAppID: String?
    public var versionID: String?
    public var projectID: String?
    public var eventType: String?
    public var actionType: String?
    public var pageName: String?
    public var componentName: String?
    public var elementType: String?
    public var data: [String: String]?
    public var occurredAt: Date?

    public init(
        name: String? = nil, miniAppID: String? = nil, versionID: String? = nil, projectID: String? = nil,
        eventType: String? = nil, actionType: String? = nil, pageName: String? = nil, componentName: String? = nil,
        elementType: String? = nil, data: [String: String]? = nil, occurredAt: Date? = nil
    ) {
        self.name = name
        self.miniAppID = miniAppID
        self.versionID = versionID
        self.projectID = projectID
        self.eventType = eventType
        self.actionType = actionType
        self.pageName = pageName
        self.componentName = componentName
        self.elementType = elementType
        self.data = data
        self.occurredAt = occurredAt
    }
}

/// A validated event, as stored.
public struct AnalyticsEvent: Sendable, Equatable, Codable {
    /// Who produced it.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Lifecycle events the SDK emits (`mini_app_open`, signature validation, ...).
        case sdk
        /// Events a mini app sends (`appear`, `click`, `error`, `custom`).
        case miniApp = "miniapp"
    }

    public var kind: Kind
    /// SDK event name, or the mini-app event's `eventType`.
    public var type: String
    public var miniAppID: String
    public var versionID: String?
    public var projectID: String?
    public var actionType: String?
    public var pageName: String?
    public var componentName: String?
    public var elementType: String?
    public var data: [String: String]
    public var occurredAt: Date?

    public init(
        kind: Kind, type: String, miniAppID: String, versionID: String? = nil, projectID: String? = nil,
        actionType: String? = nil, pageName: String? = nil, componentName: String? = nil, elementType: String? = nil,
        data: [String: String] = [:], occurredAt: Date? = nil
    ) {
        self.kind = kind
        self.type = type
        self.miniAppID = miniAppID
        self.versionID = versionID
        self.projectID = projectID
        self.actionType = actionType
        self.pageName = pageName
        self.componentName = componentName
        self.elementType = elementType
        self.data = data
        self.occurredAt = occurredAt
    }
}

/// Names and values the SDKs use.
public enum AnalyticsVocabulary {
    /// The SDK event of a mini app being opened (it makes the app "recently used").
    public static let miniAppOpen = "mini_app_open"
    public static let eventTypes: Set<String> = ["appear", "click", "error", "custom"]
    public static let actionTypes: Set<String> = ["open", "close", "add", "delete", "change"]
    /// SDK events of a mini app failing; with mini-app events of type `error` they count
    /// against a release candidate's health (``ReleaseHealth``).
    public static let failureEvents: Set<String> = ["mini_app_error", "mini_app_crash"]

    /// Whether `event` reports a failure of the mini app.
    public static func isFailure(_ event: AnalyticsEvent) -> Bool {
        event.kind == .sdk ? failureEvents.contains(event.type) : event.type == "error"
    }
}
