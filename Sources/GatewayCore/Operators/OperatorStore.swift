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

    /// Every binding of every operator, in one read (listing operators).
    func allBindings() async throws -> [RoleBinding]

    /// Adds `binding` (replacing one of the same role in the same scope, e.g. to change its
    /// mini apps); false when an identical binding existed (nothing written, nothing audited).
    func bind(_ binding: RoleBinding, audit: AuditDraft) async throws -> Bool

    /// Removes the binding of `role` in `tenantID`'s scope; false when there was none.
    func unbind(operatorID: String, role: OperatorRole, tenantID: String?, audit: AuditDraft) async throws -> Bool

    /// Keeps an issued access token (its hash) until `expiresAt`, with how its operator
    /// authenticated; drops the operator's expired ones. False (nothing stored) when the
    /// operator is gone or disabled.
    func storeToken(
        hash: String, operatorID: String, clientID: String?, method: String, sessionID: String?, expiresAt: Date,
        now: Date
    ) async throws -> Bool

    /// The holder of the unexpired token with this hash.
    func tokenOwner(hash: String, now: Date) async throws -> OperatorTokenOwner?

    /// Keeps a code or refresh token (its hash) until it is taken or expires, and a used one
    /// until its sign-in ends (to know a reuse); drops the operator's spent ones.
    func storeGrant(_ grant: OperatorGrant, now: Date) async throws

    /// Takes the unexpired grant of `kind` with this hash: marked used in the same statement
    /// that reads it, so it is good once. A used one presented again ends its sign-in: its
    /// session's unused grants and access tokens are deleted in the same transaction.
    func consumeGrant(hash: String, kind: OperatorGrant.Kind, now: Date) async throws -> OperatorGrantUse

    /// The person's TOTP secret (opened from its sealed form); nil: none enrolled.
    func totpSecret(operatorID: String) async throws -> SecretValue?

    /// Disables or enables the operator, with its audit record; disabling also ends every
    /// sign-in it holds (tokens, codes, refresh tokens). False: it was in that state already
    /// (nothing written, nothing audited).
    func setDisabled(operatorID: String, disabled: Bool, audit: AuditDraft) async throws -> Bool

    /// Enrols (`secret`) or removes (nil) the person's TOTP second factor, sealed at rest,
    /// with its audit record; ends every sign-in of the operator (tokens, codes, refresh tokens).
    func setTOTP(operatorID: String, secret: SecretValue?, audit: AuditDraft) async throws

    /// Replaces a service account's secret hash, with its audit record; ends every token it
    /// holds (the old secret's).
    func setSecretHash(operatorID: String, secretHash: String, audit: AuditDraft) async throws

    /// Deletes the operator with its bindings and sign-ins, with its audit record. False: no
    /// such operator (nothing written, nothing audited).
    func deleteOperator(operatorID: String, audit: AuditDraft) async throws -> Bool
}
