import Foundation

/// Strong entity tags and `If-None-Match` matching (RFC 9110 §13.1.2, weak comparison).
enum EntityTag {
    /// The tag of an answer that changes only with the tenant's configVersion.
    static func forConfigVersion(_ version: Int64) -> String {
        "\"cfg-\(version)\""
    }

    /// The tag of an answer that changes with the configVersion and `variant` (a short
    /// token such as an update verdict); nil = the plain configVersion tag.
    static func forConfigVersion(_ version: Int64, variant: String?) -> String {
        guard let variant else { return forConfigVersion(version) }
        return "\"cfg-\(version)-\(variant)\""
    }

    /// True when `ifNoneMatch` (a list of tags, or `*`) names `etag`.
    static func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == bare || trimmed == "W/" + bare
        }
    }

    /// The conditional GET of every operation with an `ETag`: `notModified` (304) when the
    /// request's `If-None-Match` names `etag`, else `ok` (200). ``StoredAnswerMiddleware``
    /// makes the same decision with ``matches(_:_:)`` on the raw request.
    static func answer<Output>(
        _ etag: String, notModified: (String) -> Output, ok: () throws -> Output
    ) rethrows -> Output {
        matches(RequestScope.header(.ifNoneMatch), etag) ? notModified(etag) : try ok()
    }
}
