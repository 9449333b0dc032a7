import GatewayCore

extension DeviceError: ProblemConvertible {
    /// 422 `invalid_device`, 404 `device_not_found`.
    var problem: GatewayProblem {
        switch self {
        case .invalid: GatewayProblem(status: 422, code: "invalid_device", title: "Invalid device", detail: description)
        case .notFound:
            GatewayProblem(status: 404, code: "device_not_found", title: "Device not found", detail: description)
        }
    }
}
