import Foundation

/// Client records decoded from their stored JSON documents, kept by the document's text: the
/// store still reads the row on every request (so a change is seen at once), but the same
/// text is decoded once. Decoding it was 5 % of a refused token request (issue 32's profile).
public struct ClientDocuments: Sendable {
    private let decoded: BoundedMemo<OAuthClient>

    /// - Parameter capacity: documents kept (a full memo starts afresh).
    public init(capacity: Int = 1_000) {
        decoded = BoundedMemo(capacity: capacity)
    }

    /// The client a stored document describes.
    public func client(_ document: String) throws -> OAuthClient {
        try decoded.value(document) { try JSONDecoder().decode(OAuthClient.self, from: Data(document.utf8)) }
    }
}
