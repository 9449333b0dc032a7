/// The statements of the operator realm's one-time grants (codes and refresh tokens) on
/// SQLite: taken once, remembered as used until their sign-in ends, a reuse ending it.
enum OperatorGrantSQL {
    /// The operator's spent grants: unused and expired, or of a sign-in that has ended.
    /// Arguments: operator id, now, now.
    static let purge = """
        DELETE FROM operator_grants WHERE operator_id = ?
            AND ((used_at_ms IS NULL AND expires_at_ms <= ?) OR session_expires_at_ms <= ?)
        """

    /// Marks an unused, unexpired grant used and reads it. Arguments: now, hash, kind, now.
    static let take = """
        UPDATE operator_grants SET used_at_ms = ?
        WHERE grant_hash = ? AND kind = ? AND used_at_ms IS NULL AND expires_at_ms > ?
        RETURNING operator_id, client_id, redirect_uri, code_challenge, method, expires_at_ms,
            session_expires_at_ms, session_id
        """

    /// The sign-in of a grant used before. Arguments: hash, kind.
    static let usedSession = """
        SELECT session_id FROM operator_grants
        WHERE grant_hash = ? AND kind = ? AND used_at_ms IS NOT NULL AND session_id IS NOT NULL
        """

    /// Ends a sign-in: its unused grants, then its access tokens. Argument: the session id.
    static let endGrants = "DELETE FROM operator_grants WHERE session_id = ? AND used_at_ms IS NULL"
    static let endTokens = "DELETE FROM operator_tokens WHERE session_id = ?"
}
