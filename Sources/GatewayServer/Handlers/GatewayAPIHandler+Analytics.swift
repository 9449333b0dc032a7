import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func postAnalytics(_ input: Operations.PostAnalytics.Input) async throws -> Operations.PostAnalytics.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let tenant = try RequestScope.requireTenant()
        guard let userState else { throw GatewayProblem.internalError() }
        let events = body.events.map { event in
            AnalyticsEventInput(
                name: event.name, miniAppID: event.miniAppId, versionID: event.versionId, projectID: event.projectId,
                eventType: event.eventType, actionType: event.actionType, pageName: event.pageName,
                componentName: event.componentName, elementType: event.elementType,
                data: event.data?.additionalProperties, occurredAt: event.occurredAt
            )
        }
        do {
            let result = try await userState.analytics.ingest(tenantID: tenant.id, events)
            return .ok(.init(body: .json(.init(
                accepted: result.accepted,
                rejected: result.rejected.map { .init(index: $0.index, reasons: $0.reasons) }
            ))))
        } catch let error as AnalyticsBatchError {
            throw GatewayProblem(status: 422, code: "too_many_events", title: "Too many events", detail: error.description)
        }
    }
}
