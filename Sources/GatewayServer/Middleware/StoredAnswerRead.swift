import Foundation
import Hummingbird
import HummingbirdCore

/// One read of a stored answer (an operation marked `x-gateway-stored-answer`): which
/// answer, for which mini app and version, in which language — the raw request's values,
/// percent-decoded as the generated code decodes them. The full path
/// (``StoredAnswerMiddleware``) and the event-loop fast path (``StoredAnswerFastPath``) read
/// requests through this one type.
struct StoredAnswerRead {
    let kind: ContractOperation.StoredAnswer
    let id: String
    /// The `versionId` of a manifest or bundle; nil for the mini app's info.
    let versionID: String?
    /// `lang` of a manifest.
    let lang: String?

    /// nil when `route` is not a stored-answer read.
    init?(route: RouteMatch, uri: URI) {
        guard let kind = route.operation?.storedAnswer, let id = route.parameter("id") else { return nil }
        self.kind = kind
        self.id = Self.decoded(id)
        switch kind {
        case .miniApp:
            versionID = nil
            lang = nil
        case .manifest, .bundle:
            guard let version = route.parameter("versionId") else { return nil }
            versionID = Self.decoded(version)
            lang = kind == .manifest ? Self.query("lang", uri) : nil
        }
    }

    /// A path segment or header value, percent-decoded as the generated code decodes them
    /// (its client percent-encodes string headers).
    static func decoded(_ segment: some StringProtocol) -> String {
        let raw = String(segment)
        return raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding ?? raw : raw
    }

    /// The (percent-decoded) value of query item `name`, or nil. Any value that is not a
    /// language tag is refused by validation, however it is spelled.
    static func query(_ name: String, _ uri: URI) -> String? {
        // Without a query, skip the (generic, unspecialised) parameter-map lookup.
        guard uri.query != nil else { return nil }
        return uri.queryParameters[name[...]].map(String.init)
    }
}
