import Foundation

/// The audit records of localization changes, by the admin API or by gatewayctl on the
/// database: the texts of the keys written, before and after (a key absent on one side had no
/// override there), and the tenant's localization version before and after.
public enum LocalizationTrail {
    /// Builds the record of a text change: the canonical locale, the keys' texts before and
    /// after, the versions before and after.
    public typealias Texts =
        @Sendable (
            _ locale: String, _ before: [String: String], _ after: [String: String], _ versions: LocalizationVersions
        ) -> AuditDraft
    /// Builds the record of a default-locale change from the states before and after.
    public typealias Default = @Sendable (_ before: LocalizationState, _ after: LocalizationState) -> AuditDraft

    /// The tenant's localization version before and after a write.
    public struct LocalizationVersions: Sendable {
        public var before: Int64
        public var after: Int64

        public init(before: Int64, after: Int64) {
            self.before = before
            self.after = after
        }
    }

    /// The record builder of text writes in `tenantID`.
    public static func texts(tenantID: String, actor: AuditActor, requestID: String?, time: Date) -> Texts {
        { locale, before, after, versions in
            AuditDraft(
                time: time, actor: actor, requestID: requestID, verb: .update,
                resource: AuditResource(
                    type: .localization, tenant: tenantID, id: locale, revisionBefore: versions.before,
                    revisionAfter: versions.after),
                outcome: .ok,
                change: AuditChange(
                    before: .object(before.mapValues(JSONValue.string)),
                    after: .object(after.mapValues(JSONValue.string))))
        }
    }

    /// The record builder of default-locale changes in `tenantID`.
    public static func defaultLocale(tenantID: String, actor: AuditActor, requestID: String?, time: Date) -> Default {
        { before, after in
            AuditDraft(
                time: time, actor: actor, requestID: requestID, verb: .update,
                resource: AuditResource(
                    type: .localization, tenant: tenantID, id: "default-locale", revisionBefore: before.version,
                    revisionAfter: after.version),
                outcome: .ok,
                change: AuditChange(
                    before: .object(["defaultLocale": before.defaultLocale.map(JSONValue.string) ?? .null]),
                    after: .object(["defaultLocale": after.defaultLocale.map(JSONValue.string) ?? .null])))
        }
    }
}
