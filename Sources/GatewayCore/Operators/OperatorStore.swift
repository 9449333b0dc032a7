import Foundation

/// Operators and their role bindings (issue 48), in the database every replica shares.
/// Every write appends its audit record in the same transaction: a change without its
/// record, or a record without its change, cannot happen.
public protocol OperatorStore: Sendable {
    /// Adds `newOperator` with `bindings`; throws ``OperatorError/nameTaken(_:)`` or
    /// ``OperatorError/unknownTenant(_:)`` and writes nothing then.
    func createOperator(_ newOperator: Operator, bindings: [RoleBinding], audit: AuditDraft) async throws

    /// The operator with this name (nil: none).
    func findOperator(named name: String) async throws -> Operator?

    /// Every operator, by name.
    func allOperators() async throws -> [Operator]

    /// The operator's bindings.
    func bindings(operatorID: String) async throws -> [RoleBinding]

    /// Adds `binding` (replacing one of the same role in the same scope, e.g. to change its
    /// mini apps); false when an identical binding existed (nothing written, nothing audited).
    func bind(_ binding: RoleBinding, audit: AuditDraft) async throws -> Bool

    /// Removes the binding of `role` in `tenantID`'s scope; false when there was none.
    func unbind(operatorID: String, role: OperatorRole, tenantID: String?, audit: AuditDraft) async throws -> Bool

    /// Keeps an issued access token (its hash) until `expiresAt`; drops the operator's expired ones.
    func storeToken(hash: String, operatorID: String, clientID: String?, expiresAt: Date, now: Date) async throws

    /// The operator holding the unexpired token with this hash, and the client it was issued to.
    func tokenOwner(hash: String, now: Date) async throws -> (Operator, String?)?
}

