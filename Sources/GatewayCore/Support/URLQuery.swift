import Foundation

/// Query strings the gateway writes itself (upstream calls, the console's links).
public enum URLQuery {
    /// `value` percent-encoded for a query string: everything but RFC 3986's unreserved characters.
    public static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? value
    }
}
