import Foundation
import GatewayAPI
import GatewayCore

/// Push devices of the signed-in user (issue 30): translate, the ``DeviceService`` decides.
extension GatewayAPIHandler {
    func registerDevice(_ input: Operations.RegisterDevice.Input) async throws -> Operations.RegisterDevice.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (tenant, user) = try signedInUser()
        guard let provider = PushProvider(rawValue: body.provider.rawValue),
            let platform = DevicePlatform(rawValue: body.platform.rawValue)
        else { throw GatewayProblem.invalidRequest("Unknown provider or platform.") }
        var environment: APNsEnvironment?
        if let named = body.apnsEnvironment {
            guard let known = APNsEnvironment(rawValue: named) else {
                throw GatewayProblem.invalidRequest("`apnsEnvironment` is `sandbox` or `production`.")
            }
            environment = known
        }
        let request = DeviceService.Request(
            provider: provider, token: body.token, platform: platform, locale: body.locale, appVersion: body.appVersion,
            apnsEnvironment: environment)
        let registered = try await services.userState.devices.register(request, tenantID: tenant, userID: user)
        let device = Self.deviceView(registered.device)
        return registered.created ? .created(.init(body: .json(device))) : .ok(.init(body: .json(device)))
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let (tenant, user) = try signedInUser()
        let devices = try await services.userState.devices.devices(tenantID: tenant, userID: user)
        return .ok(.init(body: .json(.init(items: devices.map(Self.deviceView)))))
    }

    func deleteDevice(_ input: Operations.DeleteDevice.Input) async throws -> Operations.DeleteDevice.Output {
        let id = input.path.deviceId
        try RequestValidation.opaqueID(id, "deviceId")
        let (tenant, user) = try signedInUser()
        try await services.userState.devices.remove(deviceID: id, tenantID: tenant, userID: user)
        return .noContent(.init())
    }

    /// The request's tenant and token subject.
    func setDeviceSignInRequests(
        _ input: Operations.SetDeviceSignInRequests.Input
    ) async throws -> Operations.SetDeviceSignInRequests.Output {
        let id = input.path.deviceId
        try RequestValidation.opaqueID(id, "deviceId")
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (tenant, user) = try signedInUser()
        try await services.userState.devices.setSignInRequests(
            body.enabled, deviceID: id, tenantID: tenant, userID: user)
        return .noContent(.init())
    }

    func signedInUser() throws -> (tenant: String, user: String) {
        (try RequestScope.requireTenant().id, try RequestScope.requirePrincipal().subject)
    }

    /// A device as answered: everything but the token.
    static func deviceView(_ device: PushDevice) -> Components.Schemas.Device {
        Components.Schemas.Device(
            id: device.id, provider: .init(rawValue: device.provider.rawValue)!,
            platform: .init(rawValue: device.platform.rawValue)!, locale: device.locale, appVersion: device.appVersion,
            apnsEnvironment: device.apnsEnvironment.flatMap { .init(rawValue: $0.rawValue) },
            createdAt: device.createdAt,
            updatedAt: device.updatedAt)
    }
}
