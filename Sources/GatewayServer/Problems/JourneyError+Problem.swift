import GatewayCore

extension JourneyError: ProblemConvertible {
    /// 404 `journey_not_found`, 422 `journey_kind_not_offered`.
    var problem: GatewayProblem {
        switch self {
        case .notFound:
            GatewayProblem(
                status: 404, code: "journey_not_found", title: "Journey not found",
                detail: "unknown, finished or expired journey; start a new one")
        case .kindNotOffered(let kind):
            GatewayProblem(
                status: 422, code: "journey_kind_not_offered", title: "Journey not offered",
                detail: "\(kind.rawValue) journeys are not offered by this tenant")
        }
    }
}
