/// Why bytes are not a CBOR item ``CBORDecoder`` accepts.
public enum CBORError: Error, Equatable, Sendable {
    /// The input ends inside an item.
    case truncated(at: Int)
    /// Bytes follow the item where nothing may.
    case trailingBytes(at: Int)
    /// An indefinite-length item (CTAP2's canonical CBOR has none).
    case indefiniteLength(at: Int)
    /// An argument not in its shortest form (CTAP2's canonical CBOR).
    case notShortest(at: Int)
    /// A tag, a float, `undefined`, or another simple value WebAuthn does not use.
    case unsupported(at: Int)
    /// A reserved additional-information value (28 to 30), or a lone "break".
    case malformed(at: Int)
    /// A text string that is not UTF-8.
    case invalidText(at: Int)
    /// A map holding one key twice.
    case duplicateKey(at: Int)
    /// Items nested deeper than the decoder allows.
    case tooDeep(at: Int)
    /// An input longer than the decoder allows.
    case tooLarge(Int)
}
