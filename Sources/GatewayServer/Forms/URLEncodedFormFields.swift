/// The fields of an `application/x-www-form-urlencoded` body, read straight from its bytes
/// with the generated decoder's rules (swift-openapi-runtime's form style, exploded):
///
/// - pairs are split at `&`; the key ends at the first `=`, the value runs to the next `&`;
///   a body with a pair without `=` (`a=1&b`, `a=1&&b=2`, not a trailing `&`) has no fields
///   at all (the runtime's dictionary parse fails, and its keyed container then reports
///   every key absent rather than refusing);
/// - keys and values: `+` is a space, then percent-decoding; an invalid escape (`%`
///   without two hex digits) or bytes that are not UTF-8 make the whole key or value empty
///   (Foundation's `removingPercentEncoding` answers nil there and the runtime uses "");
/// - a repeated key keeps every value (decoding it as one string is then a refusal).
///
/// The runtime scans `Character`s (grapheme clusters), which agree with bytes only while
/// the body is ASCII; a body with any other byte is left to the generated decoder.
/// `URLEncodedFormParityTests` checks both on the same inputs.
struct URLEncodedFormFields: Sendable, Equatable {
    /// Every key's values, in body order.
    var values: [String: [String]]

    /// What a body turned out to be.
    enum Parsed: Sendable, Equatable {
        case fields(URLEncodedFormFields)
        /// A byte outside ASCII: the generated decoder decides.
        case notASCII
    }

    static func parse(_ body: some Collection<UInt8>) -> Parsed {
        let parsed = body.withContiguousStorageIfAvailable { parse(bytes: $0) }
        return parsed ?? Array(body).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Parsed {
        var values: [String: [String]] = [:]
        var index = 0
        let end = bytes.count
        while index < end {
            let keyStart = index
            while index < end, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: "&") {
                if bytes[index] >= 0x80 { return .notASCII }
                index += 1
            }
            guard index < end, bytes[index] == UInt8(ascii: "=") else {
                return .fields(URLEncodedFormFields(values: [:]))
            }
            let keyEnd = index
            index += 1
            let valueStart = index
            while index < end, bytes[index] != UInt8(ascii: "&") {
                if bytes[index] >= 0x80 { return .notASCII }
                index += 1
            }
            let key = decode(UnsafeBufferPointer(rebasing: bytes[keyStart..<keyEnd]))
            let value = decode(UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
            values[key, default: []].append(value)
            index += 1  // past the `&` (or the end)
        }
        return .fields(URLEncodedFormFields(values: values))
    }

    /// `+` to space, then percent-decoding; "" when an escape or the result is invalid.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: bytes, as: UTF8.self)  // ASCII: nothing to decode
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else { return "" }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self) ?? ""
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
