/// Where a user falls in a rollout: a number in 0 ..< 10,000 from a hash of (tenant, mini
/// app, candidate version, user id). The same on every replica and every request (not
/// Swift's per-process seeded `Hasher`), independent between candidates, and a user in the
/// first 10 % stays in at 50 %: a user gets the candidate when `bucket < percent.basisPoints`.
///
/// The hash is 64-bit FNV-1a over the UTF-8 bytes with a 0 byte between parts, finished with
/// the SplitMix64 mixer so nearby inputs spread evenly; no allocation.
public enum RolloutBucket {
    /// The user's bucket for this candidate, 0 ..< 10,000.
    public static func of(tenantID: String, miniAppID: String, version: String, userID: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        feed(tenantID, into: &hash)
        feed(miniAppID, into: &hash)
        feed(version, into: &hash)
        feed(userID, into: &hash)
        return Int(mix(hash) % 10_000)
    }

    /// FNV-1a over `part`'s bytes, then a 0 byte (so `("ab", "c")` and `("a", "bc")` differ).
    private static func feed(_ part: String, into hash: inout UInt64) {
        for byte in part.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash &*= 0x0000_0100_0000_01b3
    }

    /// SplitMix64's finalizer.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
