/// The compact binary form of a ``CachedAnswer`` in the cache:
///
///     u8 format(=1) | i64 storedAt | i64 freshUntil | i64 staleUntil | i64 errorUntil
///     | u16 status | u16 etagLength | etag bytes | body bytes
///
/// Big-endian integers. A header of 38 bytes, then the body exactly as served.
public enum CacheEnvelope {
    static let format: UInt8 = 1

    public static func encode(_ answer: CachedAnswer) -> [UInt8] {
        let etag = Array(answer.etag.utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(38 + etag.count + answer.body.count)
        bytes.append(format)
        for value in [answer.storedAt, answer.freshUntil, answer.staleUntil, answer.errorUntil] {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        withUnsafeBytes(of: UInt16(clamping: answer.status).bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(clamping: etag.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: etag)
        bytes.append(contentsOf: answer.body)
        return bytes
    }

    /// nil for anything that is not a well-formed envelope (treated as a miss).
    public static func decode(_ bytes: [UInt8]) -> CachedAnswer? {
        guard bytes.count >= 38, bytes[0] == format else { return nil }
        func int64(at offset: Int) -> Int64 {
            bytes[offset..<offset + 8].reduce(Int64(0)) { ($0 << 8) | Int64($1) }
        }
        func uint16(at offset: Int) -> Int {
            Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        }
        let etagLength = uint16(at: 35)
        guard bytes.count >= 37 + etagLength else { return nil }
        let etag = String(decoding: bytes[37..<37 + etagLength], as: UTF8.self)
        return CachedAnswer(
            status: uint16(at: 33),
            body: Array(bytes[(37 + etagLength)...]),
            etag: etag,
            storedAt: int64(at: 1),
            freshUntil: int64(at: 9),
            staleUntil: int64(at: 17),
            errorUntil: int64(at: 25)
        )
    }
}
