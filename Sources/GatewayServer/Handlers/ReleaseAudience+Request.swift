import Foundation
import GatewayCore
import HTTPTypes

extension ReleaseAudience {
    /// `X-Host-Platform`: `ios` or `android` (any case).
    static let platformHeader = HTTPField.Name("X-Host-Platform")!
    /// `X-Host-App-Version`: the host app's version, as `hostAppVersion` is written.
    static let hostAppVersionHeader = HTTPField.Name("X-Host-App-Version")!

    /// The asking user as a release policy sees them: the token's subject, the host app's
    /// platform and version from their headers, the first `Accept-Language` tag. A header
    /// value that is not of its documented form counts as absent (outside any segment that
    /// names values), never as an error: releases must not break a client's reads.
    init(headers: HTTPFields, userID: String?) {
        self.init(
            userID: userID,
            hostAppVersion: headers[Self.hostAppVersionHeader].flatMap { $0.utf8.count <= 30 ? HostAppVersion($0) : nil },
            platform: headers[Self.platformHeader].flatMap { ClientPlatform(rawValue: $0.lowercased()) },
            locale: headers[.acceptLanguage].flatMap(Self.firstLanguage))
    }

    /// The audience of the request in flight (handlers).
    static var current: ReleaseAudience {
        ReleaseAudience(headers: RequestScope.requestHeaders, userID: RequestScope.current?.subject)
    }

    /// `ja-JP` of `ja-JP,ja;q=0.9,en;q=0.5`; nil for `*`, empty or overlong tags.
    private static func firstLanguage(_ header: String) -> String? {
        let first = header.prefix { $0 != "," }.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        guard (2...35).contains(first.utf8.count), first != "*" else { return nil }
        return first
    }
}
