/// The contract's `maxLength`s, checked by hand: the generated server does not check them.
enum ParameterLength {
    /// The name of the first (name, value, maximum length) whose value is longer than allowed,
    /// counted in code points as JSON Schema does.
    static func firstOverlong(_ limits: [(name: String, value: String?, maxLength: Int)]) -> String? {
        limits.first { ($0.value?.unicodeScalars.count ?? 0) > $0.maxLength }?.name
    }
}
