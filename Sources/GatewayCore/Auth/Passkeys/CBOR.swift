/// A CBOR data item (RFC 8949), the subset WebAuthn uses: the attestation object, the
/// authenticator data's COSE key and extensions (WebAuthn Level 3 §6.5, CTAP2 §6).
///
/// Ours rather than a package's: no Swift CBOR package is on this machine's package mirror,
/// and a relying party needs only this much. ``CBORDecoder`` is strict (definite lengths,
/// shortest-form arguments, no tags, no floats, no duplicate map keys, bounded depth and
/// size), so every item it accepts re-encodes to the same bytes with ``CBOREncoder``.
public indirect enum CBOR: Hashable, Sendable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer `-1 - n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Major type 5: a map, its pairs in the order they were encoded.
    case map([Pair])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// One key and value of a map.
    public struct Pair: Hashable, Sendable {
        public var key: CBOR
        public var value: CBOR

        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// An integer item (major type 0 or 1) for `value`.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The integer this item holds, when it is one that fits an `Int`.
    public var int: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    public var bytes: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    /// The text of a text string.
    public var text: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The pairs of a map.
    public var pairs: [Pair]? {
        if case .map(let pairs) = self { pairs } else { nil }
    }

    /// The value under `key` when this is a map holding it.
    public subscript(key: CBOR) -> CBOR? {
        pairs?.first { $0.key == key }?.value
    }

    /// The value under the integer label `label` (COSE's keys).
    public subscript(label: Int) -> CBOR? { self[.int(label)] }

    /// The value under the text key `name` (the attestation object's keys).
    public subscript(name: String) -> CBOR? { self[.text(name)] }
}
