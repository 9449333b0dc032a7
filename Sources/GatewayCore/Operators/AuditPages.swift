/// Turns the rows a store read (one more than a page, newest first) into a page.
public enum AuditPages {
    /// `rows` holds up to `limit + 1` rows: the extra one only says another page exists.
    public static func page(_ rows: [AuditRow], limit: Int) -> AuditPage {
        let items = rows.prefix(limit).compactMap(AuditChain.record)
        let next = rows.count > limit ? rows.prefix(limit).last?.id : nil
        return AuditPage(items: Array(items), next: next)
    }
}
