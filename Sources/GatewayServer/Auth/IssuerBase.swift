import Synchronization

/// The public base URL the issuer is derived from (`{base}/t/{tenant}`).
///
/// A configured `publicBaseURL` wins (set it in production). Otherwise the base is
/// `http://{host}:{bound port}`, learned when the server starts listening (so port 0 in
/// tests works); the `Host` request header is never trusted for it.
public final class IssuerBase: Sendable {
    private let configured: String?
    private let host: String
    private let port: Mutex<Int>

    public init(publicBaseURL: String?, host: String, port: Int) {
        self.configured = publicBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.host = host
        self.port = Mutex(port)
    }

    /// Records the port the server is bound to.
    public func bound(port: Int) {
        self.port.withLock { $0 = port }
    }

    /// The base URL without trailing slash.
    public var baseURL: String {
        if let configured { return configured }
        let host = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        return "http://\(host):\(port.withLock { $0 })"
    }

    /// The issuer of `tenantID`.
    public func issuer(tenantID: String) -> String {
        "\(baseURL)/t/\(tenantID)"
    }
}
