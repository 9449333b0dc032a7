import Testing
@testable import GatewayCore

/// Who may do what (issue 48): the scope rules of bindings, and facts the issue states about
/// each role, written out here independently of the role table.
@Suite("Admin authorizer")
struct AdminAuthorizerTests {
    static func binding(_ role: OperatorRole, _ tenant: String?, apps: [String] = []) -> RoleBinding {
        RoleBinding(operatorID: "op", role: role, tenantID: tenant, miniAppIDs: apps)
    }

    static func decide(
        _ verb: AdminVerb, _ resource: AdminResource, tenant: String?, app: String? = nil, _ bindings: [RoleBinding]
    ) -> AdminAuthorizer.Decision {
        AdminAuthorizer.decide(AdminPermission(verb, resource), tenantID: tenant, miniAppID: app, bindings: bindings)
    }

    @Test("stated facts of each role hold in the table")
    func statedFacts() {
        let allowed: [(OperatorRole, AdminVerb, AdminResource)] = [
            (.platformAdmin, .create, .tenant), (.platformAdmin, .create, .operator),
            (.tenantAdmin, .update, .tenant), (.tenantAdmin, .create, .client), (.tenantAdmin, .act, .signingKey),
            (.tenantAdmin, .read, .audit), (.releaseManager, .act, .release), (.releaseManager, .update, .release),
            (.pushSender, .act, .notification), (.pushSender, .read, .notification), (.auditor, .read, .audit),
            (.auditor, .read, .pushCredential), (.viewer, .read, .tenant), (.viewer, .read, .release),
        ]
        let refused: [(OperatorRole, AdminVerb, AdminResource)] = [
            (.tenantAdmin, .create, .tenant), (.tenantAdmin, .delete, .tenant), (.tenantAdmin, .create, .operator),
            (.releaseManager, .update, .tenant), (.releaseManager, .act, .notification), (.pushSender, .act, .release),
            (.auditor, .update, .tenant), (.auditor, .act, .release), (.viewer, .read, .audit),
            (.viewer, .update, .release), (.viewer, .read, .operator),
        ]
        for (role, verb, resource) in allowed {
            #expect(Self.decide(verb, resource, tenant: "acme", [Self.binding(role, role == .platformAdmin ? nil : "acme")]) == .allowed, "\(role) \(verb) \(resource)")
        }
        for (role, verb, resource) in refused {
            #expect(
                Self.decide(verb, resource, tenant: "acme", [Self.binding(role, "acme")])
                    == .forbidden(missing: AdminPermission(verb, resource)), "\(role) \(verb) \(resource)")
        }
    }

    @Test("another tenant is not found, never forbidden; platform resources need a platform binding")
    func scopes() {
        let acmeAdmin = [Self.binding(.tenantAdmin, "acme")]
        #expect(Self.decide(.read, .client, tenant: "beta", acmeAdmin) == .notFound)
        #expect(Self.decide(.delete, .client, tenant: "beta", acmeAdmin) == .notFound)
        #expect(Self.decide(.read, .client, tenant: "acme", acmeAdmin) == .allowed)
        #expect(Self.decide(.create, .tenant, tenant: nil, acmeAdmin) == .forbidden(missing: AdminPermission(.create, .tenant)))
        #expect(AdminAuthorizer.visibleTenants(acmeAdmin) == ["acme"])
        let platformViewer = [Self.binding(.viewer, nil)]
        #expect(Self.decide(.read, .client, tenant: "beta", platformViewer) == .allowed)
        #expect(Self.decide(.update, .client, tenant: "beta", platformViewer) == .forbidden(missing: AdminPermission(.update, .client)))
        #expect(AdminAuthorizer.visibleTenants(platformViewer) == nil)
        #expect(Self.decide(.read, .tenant, tenant: "acme", []) == .notFound)
    }

    @Test("a release manager of named mini apps reaches only those policies")
    func miniAppBindings() {
        let bindings = [Self.binding(.releaseManager, "acme", apps: ["hello"])]
        #expect(Self.decide(.act, .release, tenant: "acme", app: "hello", bindings) == .allowed)
        #expect(Self.decide(.act, .release, tenant: "acme", app: "pay", bindings) == .forbidden(missing: AdminPermission(.act, .release)))
        #expect(Self.decide(.read, .release, tenant: "acme", bindings) == .allowed)
        #expect(Self.decide(.update, .release, tenant: "acme", bindings) == .forbidden(missing: AdminPermission(.update, .release)))
        // Bindings add up: a tenant-admin binding in the same tenant widens it.
        let widened = bindings + [Self.binding(.tenantAdmin, "acme")]
        #expect(Self.decide(.act, .release, tenant: "acme", app: "pay", widened) == .allowed)
    }
}
