import HTTPTypes

/// Reads cookies from a request's `Cookie` headers.
enum CookieHeader {
    /// The first value of the cookie `name` that `accepts` takes (our cookies have known shapes:
    /// anything else is someone else's, or forged, and is ignored).
    static func value(named name: String, in headers: HTTPFields, accepts: (Substring) -> Bool) -> String? {
        for field in headers where field.name == .cookie {
            for pair in field.value.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard trimmed.hasPrefix(name + "=") else { continue }
                let value = trimmed.dropFirst(name.count + 1)
                if accepts(value) { return String(value) }
            }
        }
        return nil
    }
}
