import HTTPTypes

extension HTTPFields {
    /// The value of the `name` fields, as `self[name]` gives it, without its generic lazy
    /// join when there is just one field (the edge middlewares read headers on every
    /// request). Several fields are joined exactly as `self[name]` joins them.
    func value(of name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return self[name] }
            found = field.value
        }
        return found
    }
}
