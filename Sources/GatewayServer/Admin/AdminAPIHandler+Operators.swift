import AdminAPI
import Foundation
import GatewayCore

/// Operators and their role bindings on the admin API.
extension AdminAPIHandler {
    func adminListOperators(_ input: Operations.AdminListOperators.Input) async throws -> Operations.AdminListOperators.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.listOperators(
            try AdminScope.call(), cursor: input.query.cursor, limit: input.query.limit ?? 50)
        return .ok(.init(body: .json(.init(items: page.items.map { Self.view($0.operator, $0.bindings) }, next: page.next))))
    }

    func adminGetOperator(_ input: Operations.AdminGetOperator.Input) async throws -> Operations.AdminGetOperator.Output {
        try AdminInput.check(input.path._operator, max: 63, "operator")
        let found = try await service.operatorNamed(try AdminScope.call(), name: input.path._operator)
        return .ok(.init(body: .json(Self.view(found.operator, found.bindings))))
    }

    func adminCreateOperator(_ input: Operations.AdminCreateOperator.Input) async throws -> Operations.AdminCreateOperator.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.roles, maxItems: 100, "roles")
        let created = try await service.createServiceAccount(
            try AdminScope.call(), name: body.name, roles: (body.roles ?? []).map(Self.binding),
            jwks: try body.jwks.map { try Self.wire($0, as: JSONValue.self) })
        return .created(
            .init(
                body: .json(
                    .init(
                        _operator: Self.view(created.createdOperator, created.bindings),
                        clientId: created.createdOperator.name, clientSecret: created.secret))))
    }

    func adminBindOperator(_ input: Operations.AdminBindOperator.Input) async throws -> Operations.AdminBindOperator.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(input.path._operator, max: 63, "operator")
        try AdminInput.check(body.miniApps, maxItems: 100, "miniApps")
        let bound = try await service.bindOperator(
            try AdminScope.call(), name: input.path._operator, binding: Self.binding(body))
        return .ok(.init(body: .json(Self.view(bound.operator, bound.bindings))))
    }

    func adminUnbindOperator(_ input: Operations.AdminUnbindOperator.Input) async throws -> Operations.AdminUnbindOperator.Output {
        try AdminInput.check(input.path._operator, max: 63, "operator")
        try AdminInput.check(input.query.role, max: 40, "role")
        try AdminInput.check(input.query.tenant, max: 63, "tenant")
        let unbound = try await service.unbindOperator(
            try AdminScope.call(), name: input.path._operator, role: input.query.role, tenantID: input.query.tenant)
        return .ok(.init(body: .json(Self.view(unbound.operator, unbound.bindings))))
    }

    func adminUpdateOperator(_ input: Operations.AdminUpdateOperator.Input) async throws -> Operations.AdminUpdateOperator.Output {
        guard case .applicationMergePatchJson(let body) = input.body else { throw AdminError.badRequest("a merge patch body") }
        try AdminInput.check(input.path._operator, max: 63, "operator")
        let changed = try await service.setOperatorDisabled(
            try AdminScope.call(), name: input.path._operator, disabled: body.disabled)
        return .ok(.init(body: .json(Self.view(changed.operator, changed.bindings))))
    }

    func adminDeleteOperator(_ input: Operations.AdminDeleteOperator.Input) async throws -> Operations.AdminDeleteOperator.Output {
        try AdminInput.check(input.path._operator, max: 63, "operator")
        try await service.deleteOperator(try AdminScope.call(), name: input.path._operator)
        return .noContent(.init())
    }

    func adminRotateOperatorSecret(
        _ input: Operations.AdminRotateOperatorSecret.Input
    ) async throws -> Operations.AdminRotateOperatorSecret.Output {
        try AdminInput.check(input.path._operator, max: 63, "operator")
        let call = try AdminScope.call()
        let secret = try await service.rotateOperatorSecret(call, name: input.path._operator)
        let found = try await service.operatorNamed(call, name: input.path._operator)
        return .ok(
            .init(
                body: .json(
                    .init(
                        _operator: Self.view(found.operator, found.bindings), clientId: found.operator.name,
                        clientSecret: secret))))
    }

    static func binding(_ request: Components.Schemas.RoleBindingRequest) -> AdminBindingRequest {
        AdminBindingRequest(role: request.role, tenantID: request.tenant, miniAppIDs: request.miniApps ?? [])
    }

    static func view(_ found: Operator, _ bindings: [RoleBinding]) -> Components.Schemas.OperatorView {
        .init(
            id: found.id, name: found.name, kind: found.kind == .person ? .person : .serviceAccount,
            disabled: found.disabled, roles: bindings.map(\.label).sorted())
    }
}
