import GatewayCore

/// Bounds of the admin contract the generated server does not check (lengths of strings
/// and lists): a value past one is 400 `invalid_request`, before anything is read or decided.
enum AdminInput {
    /// `value` (when given) is at most `max` characters, and not empty unless `empty` (a
    /// merge patch's "clear this field"). Characters are counted as JSON Schema's `maxLength`
    /// counts them, in Unicode code points: a Swift `Character` can hold many (combining marks).
    static func check(_ value: String?, max: Int, _ name: String, empty: Bool = false) throws {
        guard let value else { return }
        guard empty || !value.isEmpty, value.unicodeScalars.count <= max else {
            throw AdminError.badRequest("\(name) is \(empty ? 0 : 1)-\(max) characters")
        }
    }

    /// `values` (when given) are at most `max`.
    static func check<T>(_ values: [T]?, maxItems max: Int, _ name: String) throws {
        guard let values, values.count > max else { return }
        throw AdminError.badRequest("\(name) has at most \(max) items")
    }
}
