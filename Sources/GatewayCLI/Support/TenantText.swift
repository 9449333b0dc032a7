import Foundation
import GatewayCore

/// Human-readable renderings of tenants and audit rows. Secrets are masked unless `reveal`.
enum TenantText {
    static let timeStyle = Date.ISO8601FormatStyle()

    static func time(_ date: Date) -> String { date.formatted(timeStyle) }

    /// `tenant list`: ID / NAME / STATUS / VERSION / UPDATED.
    static func list(_ tenants: [Tenant]) -> [String] {
        var table = TextTable(header: ["ID", "NAME", "STATUS", "VERSION", "UPDATED"])
        table.rows = tenants.map {
            [
                $0.id, oneLine($0.displayName, limit: 40), $0.status.rawValue, String($0.configVersion),
                time($0.updatedAt),
            ]
        }
        return table.lines
    }

    /// `tenant show`: every field, one per line, aligned.
    /// `masked`: secrets as an admin API answered them (the tenant then holds none).
    static func show(_ tenant: Tenant, reveal: Bool, masked: [TenantField: String] = [:]) -> [String] {
        var rows: [(String, String)] = TenantField.allCases.map { field in
            (field.rawValue, masked[field] ?? value(of: field, in: tenant, reveal: reveal))
        }
        rows += [
            ("configVersion", String(tenant.configVersion)),
            ("createdAt", time(tenant.createdAt)),
            ("updatedAt", time(tenant.updatedAt)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
    }

    /// `tenant audit`: AT / ACTION / ACTOR / VERSION / FIELDS.
    static func audit(_ entries: [TenantAuditEntry]) -> [String] {
        var table = TextTable(header: ["AT", "ACTION", "ACTOR", "VERSION", "FIELDS"])
        table.rows = entries.map {
            [
                time($0.at), $0.action, $0.actor, String($0.configVersion),
                $0.changedFields.isEmpty ? "-" : $0.changedFields.joined(separator: ","),
            ]
        }
        return table.lines
    }

    static func value(of field: TenantField, in t: Tenant, reveal: Bool) -> String {
        if field == .rasClientKeys {
            guard !t.ras.clientKeys.isEmpty else { return "- (the RAS-compatible API refuses every host app)" }
            let previous = t.ras.clientKeys.compactMap(\.notAfter).map { "one until " + time($0) }
            return "\(t.ras.clientKeys.count) (hashed)"
                + (previous.isEmpty ? "" : "; previous: " + previous.joined(separator: ", "))
        }
        guard let plain = field.plainValue(in: t) else { return "-" }
        if field.isSecret { return reveal ? plain : SecretValue(plain).masked }
        return oneLine(plain, limit: 200)
    }

    /// Cuts `text` to `limit` characters (with `…`) and keeps it on one line.
    static func oneLine(_ text: String, limit: Int) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }
}
