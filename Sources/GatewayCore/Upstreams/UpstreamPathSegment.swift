/// One path segment of an upstream URL, built from a value a client or an upstream
/// supplied (mini-app id, version id, preview code, key id, project id).
///
/// Everything but RFC 3986's unreserved characters is percent-encoded, so a value can
/// never add a segment (`/` becomes `%2F`), a query or a fragment. The dot segments `.`
/// and `..` are refused outright: percent-encoding them would not help (`%2E%2E` is the
/// same segment to a normalising proxy), and the upstream call carries the tenant's secret.
public enum UpstreamPathSegment {
    /// The encoded segment.
    /// - Throws: ``UpstreamError/invalidPathSegment`` for an empty, `.` or `..` value.
    public static func encode(_ value: String) throws -> String {
        guard !value.isEmpty, value != ".", value != ".." else { throw UpstreamError.invalidPathSegment }
        var encoded = ""
        encoded.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if ASCIIByte.isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%"
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    private static let hex: [Unicode.Scalar] = Array("0123456789ABCDEF".unicodeScalars)
}
