import NIOCore
import NIOSSL

/// TLS for every connection a `RedisClient` opens (`rediss://`, `rediss-sentinel://`).
///
/// The server certificate is always verified: against the system trust roots, or `caFile`; its
/// name must match `serverName`, else the host name (an IP address must be in the certificate's
/// IP SANs).
public struct RedisTLSConfiguration: Sendable, Equatable {
    /// PEM file of trust roots used instead of the system's.
    public var caFile: String?
    /// The name the server certificate must carry (and SNI), when it differs from the host.
    public var serverName: String?
    /// PEM client certificate chain, for servers that require client certificates.
    public var certificateFile: String?
    /// PEM private key of `certificateFile`.
    public var privateKeyFile: String?

    /// Creates a TLS configuration; everything defaults to system roots and no client certificate.
    public init(
        caFile: String? = nil, serverName: String? = nil, certificateFile: String? = nil, privateKeyFile: String? = nil
    ) {
        self.caFile = caFile
        self.serverName = serverName
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}

/// The TLS context of one client, built once (loading files is slow); a build failure fails
/// every connect with the reason.
struct RedisTLSContext: Sendable {
    private let context: Result<NIOSSLContext, RedisError>
    private let serverName: String?

    init(_ configuration: RedisTLSConfiguration) {
        self.serverName = configuration.serverName
        self.context = Result { () throws(RedisError) -> NIOSSLContext in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            if let caFile = configuration.caFile {
                tls.trustRoots = .file(caFile)
            }
            do {
                if let certificateFile = configuration.certificateFile, let keyFile = configuration.privateKeyFile {
                    tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
                    tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
                }
                return try NIOSSLContext(configuration: tls)
            } catch {
                throw .connectionFailed("TLS setup failed: \(error)")
            }
        }
    }

    /// The handler that goes first in a new channel's pipeline for a connection to `host`.
    func handler(host: String) throws -> NIOSSLClientHandler {
        let name = self.serverName ?? host
        // SNI takes names only; an IP address is verified against the certificate's IP SANs.
        let isAddress = (try? SocketAddress(ipAddress: name, port: 0)) != nil
        return try NIOSSLClientHandler(context: try self.context.get(), serverHostname: isAddress ? nil : name)
    }
}
