import Foundation
import NIOCore
import NIOSSL
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=…` URL, parsed into a
/// postgres-nio client configuration.
///
/// Query parameters: `sslmode` (`disable`, `allow`/`prefer` (default), `require`
/// (encrypted, not verified), `verify-ca`, `verify-full`), `sslrootcert` (a PEM file of
/// trusted roots), `host` (a Unix socket folder, as libpq), `pool_size` (most connections
/// per process, default 20), `connect_timeout` (seconds, default 10), `application_name`,
/// `search_path` (the schema the gateway's tables live in, default `public`: several
/// installations can share one database, one schema each).
public struct PostgresURL: Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// A Unix socket folder (`?host=/path`), used instead of TCP when set.
    public let socketFolder: String?
    public let username: String
    let password: String?
    public let database: String
    public let sslMode: String
    public let rootCertificates: String?
    public let poolSize: Int
    public let connectTimeout: Duration
    public let applicationName: String
    public let searchPath: String?

    /// What a URL can get wrong.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public init(_ text: String) throws(Invalid) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw Invalid(
                description:
                    "database URL must look like postgres://user:password@host:5432/database (got \(Self.redact(text)))"
            )
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        socketFolder = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw Invalid(description: "database URL has no user name (postgres://USER:password@host/database)")
        }
        username = user
        password = components.password?.removingPercentEncoding
        let name = String(components.path.drop(while: { $0 == "/" }))
        database = name.isEmpty ? user : (name.removingPercentEncoding ?? name)
        sslMode = query["sslmode"]?.lowercased() ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw Invalid(
                description:
                    "sslmode must be disable, allow, prefer, require, verify-ca or verify-full (got \(sslMode))")
        }
        rootCertificates = query["sslrootcert"]
        guard let pool = Int(query["pool_size"] ?? "20"), (1 ... 1000).contains(pool) else {
            throw Invalid(description: "pool_size must be 1...1000")
        }
        poolSize = pool
        guard let timeout = Int(query["connect_timeout"] ?? "10"), (1 ... 600).contains(timeout) else {
            throw Invalid(description: "connect_timeout must be 1...600 seconds")
        }
        connectTimeout = .seconds(timeout)
        applicationName = query["application_name"] ?? "superapp-gateway"
        searchPath = query["search_path"].flatMap { $0.isEmpty ? nil : $0 }
        if let searchPath, !searchPath.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) {
            throw Invalid(
                description: "search_path must be one schema name of letters, digits and '_' (got \(searchPath))")
        }
    }

    /// The URL without its password.
    public var description: String {
        let parameters = [socketFolder.map { "host=\($0)" }, searchPath.map { "search_path=\($0)" }].compactMap { $0 }
        return "postgres://\(username)@\(host):\(port)/\(database)"
            + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// `text` with anything between `://` and `@` replaced, for messages.
    public static func redact(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let start = text.range(of: "://") else { return text }
        return text[..<start.upperBound] + "•••" + text[at...]
    }

    /// The postgres-nio configuration; `searchPath` (tests) sets the session's schema.
    func configuration(searchPath: String? = nil) throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath {
            configuration = .init(unixSocketPath: socketPath, username: username, password: password, database: database)
        } else {
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: try tls())
        }
        configuration.options.maximumConnections = poolSize
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = startupParameters(searchPath: searchPath)
        return configuration
    }

    /// The Unix socket (`?host=/folder`), when the URL names one instead of TCP.
    private var socketPath: String? { socketFolder.map { "\($0)/.s.PGSQL.\(port)" } }

    /// `application_name`, and `search_path` when a schema is set (tests isolate themselves in one).
    private func startupParameters(searchPath: String?) -> [(String, String)] {
        [("application_name", applicationName)] + ((searchPath ?? self.searchPath).map { [("search_path", $0)] } ?? [])
    }

    /// Whether `sslmode` asks for no TLS, TLS when offered, or TLS required.
    private enum TLSUse { case disable, prefer, require }

    /// What `sslmode` asks for, with the certificate checks it implies.
    private func tlsSettings() -> (use: TLSUse, configuration: TLSConfiguration) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let rootCertificates { tls.trustRoots = .file(rootCertificates) }
        switch sslMode {
        case "disable": return (.disable, tls)
        case "allow", "prefer":
            tls.certificateVerification = .none
            return (.prefer, tls)
        case "require":
            // libpq's `require`: encrypted, the certificate is not checked.
            tls.certificateVerification = .none
            return (.require, tls)
        case "verify-ca":
            tls.certificateVerification = .noHostnameVerification
            return (.require, tls)
        default:
            return (.require, tls)
        }
    }

    private func tls() throws -> PostgresClient.Configuration.TLS {
        let (use, tls) = tlsSettings()
        switch use {
        case .disable: return .disable
        case .prefer: return .prefer(tls)
        case .require: return .require(tls)
        }
    }

    /// The same settings for a single connection outside the pool (``FreshConnection``).
    func connectionConfiguration(searchPath: String? = nil) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketPath {
            configuration = .init(unixSocketPath: socketPath, username: username, password: password, database: database)
        } else {
            let (use, settings) = tlsSettings()
            let tls: PostgresConnection.Configuration.TLS =
                switch use {
                case .disable: .disable
                case .prefer: .prefer(try NIOSSLContext(configuration: settings))
                case .require: .require(try NIOSSLContext(configuration: settings))
                }
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = TimeAmount(connectTimeout)
        configuration.options.additionalStartupParameters = startupParameters(searchPath: searchPath)
        return configuration
    }
}
