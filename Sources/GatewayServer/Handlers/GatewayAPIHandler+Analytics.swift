import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func postAnalytics(_ input: Operations.PostAnalytics.Input) async throws -> Operations.PostAnalytics.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let tenant = try RequestScope.requireTenant()
        let maxBatch = AnalyticsBatchValidator().maxBatch
        guard body.events.count <= maxBatch else {
            throw AnalyticsBatchError.tooManyEvents(count: body.events.count, max: maxBatch)
        }
        // Events with an unparseable `occurredAt` are refused here; the others go to the
        // service, whose rejection indices are mapped back to the batch's.
        var early: [AnalyticsRejection] = []
        var positions: [Int] = []
        var inputs: [AnalyticsEventInput] = []
        for (index, event) in body.events.enumerated() {
            var occurredAt: Date?
            if let text = event.occurredAt {
                guard let date = RFC3339.date(from: text) else {
                    early.append(
                        AnalyticsRejection(index: index, reasons: ["occurredAt must be an RFC 3339 date-time"]))
                    continue
                }
                occurredAt = date
            }
            positions.append(index)
            inputs.append(AnalyticsEventInput(
                name: event.name, miniAppID: event.miniAppId, versionID: event.versionId, projectID: event.projectId,
                eventType: event.eventType, actionType: event.actionType, pageName: event.pageName,
                componentName: event.componentName, elementType: event.elementType,
                data: event.data?.additionalProperties, occurredAt: occurredAt
            ))
        }
        let result = try await services.userState.analytics.ingest(
            tenantID: tenant.id, userID: RequestScope.current?.subject, inputs)
        let rejected =
            (early + result.rejected.map { AnalyticsRejection(index: positions[$0.index], reasons: $0.reasons) }).sorted
        { $0.index < $1.index }
        return .ok(
            .init(
                body: .json(
                    .init(
                        accepted: result.accepted,
                        rejected: rejected.map { .init(index: $0.index, reasons: $0.reasons) }
                    ))))
    }
}
