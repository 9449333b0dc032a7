import Foundation

/// Operators and bindings as both engines store them: a binding's mini apps as one
/// comma-separated column (ids hold no comma: they are slugs).
package enum OperatorRows {
    package static func miniApps(_ ids: [String]) -> String {
        ids.sorted().joined(separator: ",")
    }

    package static func binding(operatorID: String, role: String, tenantID: String?, miniAppIDs: String) throws -> RoleBinding {
        guard let role = OperatorRole(rawValue: role) else { throw OperatorError.invalid("stored role \(role) is unknown") }
        return RoleBinding(
            operatorID: operatorID, role: role, tenantID: tenantID,
            miniAppIDs: miniAppIDs.split(separator: ",").map(String.init))
    }

    package static func `operator`(
        id: String, name: String, kind: String, passwordHash: String?, secretHash: String?, jwks: String?,
        disabled: Bool, createdAtMs: Int64
    ) throws -> Operator {
        guard let kind = Operator.Kind(rawValue: kind) else { throw OperatorError.invalid("stored kind \(kind) is unknown") }
        return Operator(
            id: id, name: name, kind: kind, passwordHash: passwordHash, secretHash: secretHash,
            jwks: try jwks.map { try JSONValue.decode(Data($0.utf8)) }, disabled: disabled,
            createdAt: StoreClock.date(createdAtMs))
    }
}
