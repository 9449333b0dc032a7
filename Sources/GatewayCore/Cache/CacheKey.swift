/// The key schema of cached answers:
///
///     gw:v1:{tenant}:u{upstreamVersion}:{kind}:{part}:{part}…
///
/// ``upstreamVersion(_:)`` digests the tenant settings the answers depend on (its platform
/// and provisioning targets), so changing where or what the gateway asks makes the tenant's
/// old answers unreachable (they expire on their own TTL), while any other change (display
/// name, theme, TTLs, …) keeps them, and with them the stale copies that stand in while an
/// upstream fails. Parts are the request's identifying inputs (ids validated by the
/// contract; free text percent-escaped).
public enum CacheKey {
    public static func answer(tenant: Tenant, kind: String, _ parts: [String]) -> String {
        // Built by appending (runs on every cached read): no intermediate arrays.
        var key = "gw:v1:"
        key.reserveCapacity(64 + parts.reduce(0) { $0 + $1.utf8.count })
        key += tenant.id
        key += ":u"
        appendHex(upstreamDigest(tenant), to: &key)
        key += ":"
        key += kind
        for part in parts {
            key += ":"
            key += escape(part)
        }
        return key
    }

    /// What a tenant's cached answers depend on, as 16 hex digits stable across processes
    /// and releases (FNV-1a 64): the platform's URL, project, preview mode and signature
    /// requirement, and the provisioning service's URL, super app id and version. Secrets are
    /// left out: a new key for the same project gets the same answers, and a digest of a key
    /// does not belong in a cache key. (Until a chaos run showed it, the key carried the
    /// tenant's `configVersion`: a display-name change while the platform was unreachable made
    /// every stale copy unreachable, and reads answered 504 though copies existed.)
    public static func upstreamVersion(_ tenant: Tenant) -> String {
        var text = ""
        appendHex(upstreamDigest(tenant), to: &text)
        return text
    }

    /// ``upstreamVersion(_:)`` as a number (the key appends its digits: no string per read).
    static func upstreamDigest(_ tenant: Tenant) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String?) {
            for byte in (text ?? "").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            // A field separator, different for nil and "": no two field lists hash alike by shifting.
            hash = (hash ^ (text == nil ? 0x1E : 0x1F)) &* 0x0000_0100_0000_01b3
        }
        let platform = tenant.platform, provisioning = tenant.provisioning
        mix(platform.baseURL)
        mix(platform.projectID)
        mix(platform.previewMode ? "preview" : "live")
        mix(platform.requireSignatureVerification ? "signed" : "any")
        mix(provisioning.baseURL)
        mix(provisioning.superAppID)
        mix(provisioning.superAppVersion)
        return hash
    }

    /// `value` as 16 lowercase hex digits, zero-padded.
    private static func appendHex(_ value: UInt64, to text: inout String) {
        // One append of 16 bytes (a scalar append per digit was a tenth of a cached read's key).
        text += String(unsafeUninitializedCapacity: 16) { digits in
            for index in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
                digits[index] = digit < 10 ? digit + 48 : digit + 87
            }
            return 16
        }
    }

    /// The last known latest version of a tenant's mini app: WITHOUT the upstream version, so
    /// it survives the upstream changes that make every answer cold; only ever a hint.
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

    /// That the gateway served `version` of a mini app to `userID` (``ServedVersions``): shared by
    /// replicas, without the configVersion.
    public static func servedVersion(tenantID: String, miniAppID: String, version: String, userID: String) -> String {
        "gw:v1:" + tenantID + ":release-served:" + escape(miniAppID) + ":" + escape(version) + ":" + escape(userID)
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
