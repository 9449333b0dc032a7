/// The key schema of cached answers:
///
///     gw:v1:{tenant}:{configVersion}:{kind}:{part}:{part}…
///
/// The tenant's configVersion is in every key, so any gatewayctl change makes the
/// tenant's old answers unreachable (they expire on their own TTL). Parts are the
/// request's identifying inputs (ids validated by the contract; free text percent-escaped).
public enum CacheKey {
    public static func answer(tenant: Tenant, kind: String, _ parts: [String]) -> String {
        (["gw:v1", tenant.id, String(tenant.configVersion), kind] + parts.map(escape)).joined(separator: ":")
    }

    /// Keeps `:` and control characters out of a key part.
    static func escape(_ part: String) -> String {
        var escaped = ""
        for scalar in part.unicodeScalars {
            if scalar == ":" || scalar == "%" || scalar.value < 0x20 || scalar.value == 0x7F {
                escaped += "%" + String(scalar.value, radix: 16, uppercase: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
