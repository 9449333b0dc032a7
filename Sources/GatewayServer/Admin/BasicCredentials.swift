import Foundation

/// `Authorization: Basic …` client credentials (RFC 6749 §2.3.1: id and secret form-encoded,
/// then joined with `:` and base64-encoded).
struct BasicCredentials {
    var user: String
    var password: String

    init?(_ header: String?) {
        guard let header, header.count <= 1_000, header.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        guard let user = Self.decode(text[..<colon]), let password = Self.decode(text[text.index(after: colon)...])
        else { return nil }
        (self.user, self.password) = (user, password)
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
