/// The key schema of cached answers:
///
///     gw:v1:{tenant}:{configVersion}:{kind}:{part}:{part}…
///
/// The tenant's configVersion is in every key, so any gatewayctl change makes the
/// tenant's old answers unreachable (they expire on their own TTL). Parts are the
/// request's identifying inputs (ids validated by the contract; free text percent-escaped).
public enum CacheKey {
    public static func answer(tenant: Tenant, kind: String, _ parts: [String]) -> String {
        // Built by appending (runs on every cached read): no intermediate arrays.
        var key = "gw:v1:"
        key.reserveCapacity(48 + parts.reduce(0) { $0 + $1.utf8.count })
        key += tenant.id
        key += ":"
        key += String(tenant.configVersion)
        key += ":"
        key += kind
        for part in parts {
            key += ":"
            key += escape(part)
        }
        return key
    }

    /// The last known latest version of a tenant's mini app: WITHOUT the configVersion, so it
    /// survives the config bumps that make every answer cold; only ever a hint.
    public static func latestVersionHint(tenantID: String, miniAppID: String) -> String {
        "gw:v1:" + tenantID + ":hint:latest:" + escape(miniAppID)
    }

    /// One series of a release candidate's health counts (``ReleaseHealth``) in one window
    /// bucket: shared by replicas, without the configVersion (a config change must not reset it).
    public static func releaseHealth(
        tenantID: String, miniAppID: String, candidate: String, side: String, series: String, bucket: Int64
    ) -> String {
        "gw:v1:" + tenantID + ":release-health:" + escape(miniAppID) + ":" + escape(candidate) + ":" + side + ":"
            + series + ":" + String(bucket)
    }

    /// Keeps `:` and control characters out of a key part (`%XX`, so `%` itself too).
    static func escape(_ part: String) -> String {
        guard part.utf8.contains(where: needsEscape) else { return part }
        var escaped = ""
        for scalar in part.unicodeScalars {
            if scalar.isASCII, needsEscape(UInt8(scalar.value)) {
                escaped += "%" + String(scalar.value, radix: 16, uppercase: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ":") || byte == UInt8(ascii: "%") || byte < 0x20 || byte == 0x7F
    }
}
