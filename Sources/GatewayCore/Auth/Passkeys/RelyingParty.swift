import Crypto
import Foundation

/// A tenant's WebAuthn relying party: its RP ID and the origins ceremonies may come from
/// (the hosted pages' origin, and native apps' origins as iOS and Android present them,
/// such as `android:apk-key-hash:…`). It verifies answers; issuing and remembering
/// challenges, and keeping credentials, are the ceremonies' and the stores' jobs.
public struct RelyingParty: Sendable {
    public var id: String
    public var origins: Set<String>
    /// SHA-256 of the RP ID: what authenticator data starts with.
    public let idHash: [UInt8]

    public init(id: String, origins: Set<String>) {
        self.id = id
        self.origins = origins
        idHash = Array(SHA256.hash(data: Data(id.utf8)))
    }

    /// Checks the client data the browser or the app collected (§7.1 steps 7-10, §7.2 steps
    /// 11-14) and answers its hash, which the authenticator's signature covers.
    func checkClientData(_ json: [UInt8], ceremony: String, challenge: [UInt8]) throws(PasskeyError) -> [UInt8] {
        guard let data = try? JSONDecoder().decode(ClientData.self, from: Data(json)) else {
            throw .malformed("clientDataJSON is not the client data")
        }
        guard data.type == ceremony else { throw .wrongCeremony }
        guard let received = Base64URL.decode(data.challenge),
            ConstantTime.equals(Base64URL.encode(received), Base64URL.encode(challenge))
        else { throw .challengeMismatch }
        guard origins.contains(data.origin) else { throw .originNotAllowed(data.origin) }
        guard data.crossOrigin != true, data.topOrigin == nil else { throw .crossOrigin }
        return Array(SHA256.hash(data: json))
    }

    /// Checks what every ceremony's authenticator data must show (§7.1 steps 13-16, §7.2
    /// steps 15-17): this RP ID, the user present and verified.
    func checkAuthenticatorData(_ data: AuthenticatorData) throws(PasskeyError) {
        guard data.rpIDHash == idHash else { throw .rpIDMismatch }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        guard data.flags.contains(.userVerified) else { throw .userNotVerified }
    }

    /// The members of `CollectedClientData` (§5.8.1) the checks read.
    private struct ClientData: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
    }
}
