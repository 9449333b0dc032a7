/// Decodes a contract type (a generated form schema of string properties) from
/// ``URLEncodedFormFields``, as the generated decoder does: a key present once is its
/// value, an absent key is nil, a repeated key is a refusal. The schema's own synthesized
/// `init(from:)` names the keys, so this follows the contract without a list of its own.
struct FormFieldsDecoder: Decoder {
    let fields: URLEncodedFormFields
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Decodes `type`; throws ``Refusal`` where the generated decoder throws.
    static func decode<T: Decodable>(_ type: T.Type, from fields: URLEncodedFormFields) throws -> T {
        try T(from: FormFieldsDecoder(fields: fields))
    }

    /// A body the generated decoder would not decode either.
    struct Refusal: Error, Equatable {
        let reason: String
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Fields<Key>(values: fields.values))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Refusal(reason: "a form body is not a list")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Refusal(reason: "a form body is not a single value")
    }

    private struct Fields<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let values: [String: [String]]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            guard let found = values[key.stringValue], !found.isEmpty else {
                throw Refusal(reason: "\(key.stringValue) is missing")
            }
            guard found.count == 1 else { throw Refusal(reason: "\(key.stringValue) is given more than once") }
            return found[0]
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let string = try decode(String.self, forKey: key) as? T else {
                throw Refusal(reason: "\(key.stringValue): only string fields are read from a form here")
            }
            return string
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw Refusal(reason: "nested form fields are not read here")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw Refusal(reason: "nested form fields are not read here")
        }

        func superDecoder() throws -> any Decoder { throw Refusal(reason: "no super decoder") }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Refusal(reason: "no super decoder") }
    }
}
