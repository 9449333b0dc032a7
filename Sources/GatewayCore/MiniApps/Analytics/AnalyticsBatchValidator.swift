/// An event refused in a batch, by its index in the batch.
public struct AnalyticsRejection: Sendable, Equatable, Codable {
    /// Position in the batch (0-based).
    public var index: Int
    /// Why it was refused.
    public var reasons: [String]

    public init(index: Int, reasons: [String]) {
        self.index = index
        self.reasons = reasons
    }
}

/// A whole batch refused.
public enum AnalyticsBatchError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooManyEvents(count: Int, max: Int)

    public var description: String {
        switch self {
        case .tooManyEvents(let count, let max): "\(count) events in one batch, at most \(max) allowed"
        }
    }
}

/// Validates a batch: valid events are kept, invalid ones rejected by index with reasons.
public struct AnalyticsBatchValidator: Sendable {
    /// Most events per batch.
    public var maxBatch = 100
    public var maxIDLength = 200
    public var maxTextLength = 200
    public var maxDataEntries = 50
    public var maxDataValueLength = 1_000

    public init() {}

    /// Splits `inputs`; throws ``AnalyticsBatchError/tooManyEvents(count:max:)`` above `maxBatch`.
    public func validate(
        _ inputs: [AnalyticsEventInput]
    ) throws(AnalyticsBatchError) -> (accepted: [AnalyticsEvent], rejected: [AnalyticsRejection]) {
        guard inputs.count <= maxBatch else { throw .tooManyEvents(count: inputs.count, max: maxBatch) }
        var accepted: [AnalyticsEvent] = []
        var rejected: [AnalyticsRejection] = []
        for (index, input) in inputs.enumerated() {
            switch validate(input) {
            case .success(let event): accepted.append(event)
            case .failure(let reasons): rejected.append(AnalyticsRejection(index: index, reasons: reasons.reasons))
            }
        }
        return (accepted, rejected)
    }

    struct Reasons: Error { var reasons: [String] }

    func validate(_ input: AnalyticsEventInput) -> Result<AnalyticsEvent, Reasons> {
        var reasons: [String] = []
        func text(_ value: String?, _ field: String, max: Int) {
            guard let value else { return }
            if value.isEmpty || value.count > max { reasons.append("\(field) must be 1-\(max) characters") }
        }
        let miniAppID = input.miniAppID ?? ""
        if miniAppID.isEmpty { reasons.append("miniAppId is required") }
        text(input.miniAppID, "miniAppId", max: maxIDLength)
        text(input.versionID, "versionId", max: maxIDLength)
        text(input.projectID, "projectId", max: maxIDLength)
        let kind: AnalyticsEvent.Kind
        let type: String
        switch (input.name, input.eventType) {
        case (let name?, nil):
            kind = .sdk
            type = name
            if !Self.isSDKEventName(name) {
                reasons.append("name must be an SDK event such as mini_app_open (mini_app_[a-z0-9_]+)")
            }
            if input.actionType != nil || input.pageName != nil || input.componentName != nil
                || input.elementType != nil
            {
                reasons.append("SDK events carry no actionType, pageName, componentName or elementType")
            }
        case (nil, let eventType?):
            kind = .miniApp
            type = eventType
            if !AnalyticsVocabulary.eventTypes.contains(eventType) {
                reasons.append("eventType must be one of appear, click, error, custom")
            }
            if let action = input.actionType, !AnalyticsVocabulary.actionTypes.contains(action) {
                reasons.append("actionType must be one of open, close, add, delete, change")
            }
        default:
            return .failure(
                Reasons(
                    reasons: reasons + ["exactly one of name (SDK event) or eventType (mini-app event) is required"]))
        }
        text(input.pageName, "pageName", max: maxTextLength)
        text(input.componentName, "componentName", max: maxTextLength)
        text(input.elementType, "elementType", max: maxTextLength)
        let data = input.data ?? [:]
        if data.count > maxDataEntries { reasons.append("data has \(data.count) entries, at most \(maxDataEntries)") }
        if data.contains(where: {
            $0.key.isEmpty || $0.key.count > maxTextLength || $0.value.count > maxDataValueLength
        }) {
            reasons.append("data keys must be 1-\(maxTextLength) characters and values at most \(maxDataValueLength)")
        }
        guard reasons.isEmpty else { return .failure(Reasons(reasons: reasons)) }
        return .success(AnalyticsEvent(
            kind: kind, type: type, miniAppID: miniAppID, versionID: input.versionID, projectID: input.projectID,
            actionType: input.actionType, pageName: input.pageName, componentName: input.componentName,
            elementType: input.elementType, data: data, occurredAt: input.occurredAt
        ))
    }

    /// `mini_app_` followed by 1-60 of `a-z`, `0-9`, `_`.
    static func isSDKEventName(_ name: String) -> Bool {
        guard name.hasPrefix("mini_app_") else { return false }
        let rest = name.utf8.dropFirst(9)
        return (1...60).contains(rest.count)
            && rest.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}
