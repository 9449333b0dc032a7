import GatewayAPI

extension GatewayAPIHandler {
    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        let results = await services.readiness.check()
        let checks = results.map {
            Components.Schemas.ReadinessCheck(
                name: $0.name, ok: $0.ok, detail: $0.detail, latencyMs: $0.latencyMilliseconds)
        }
        if results.allSatisfy(\.ok) {
            return .ok(.init(body: .json(.init(status: .ready, checks: checks))))
        }
        let failing = results.filter { !$0.ok }.map(\.name).joined(separator: ", ")
        return .serviceUnavailable(
            .init(
                body: .applicationProblemJson(
                    .init(
                        _type: ProblemResponse.typeBase + "not-ready", title: "Not ready", status: 503,
                        detail: "Failing checks: \(failing).", code: "not_ready", checks: checks))))
    }

    func getMetrics(_ input: Operations.GetMetrics.Input) async throws -> Operations.GetMetrics.Output {
        .ok(.init(body: .plainText(.init(services.metrics.exposition()))))
    }
}
