import Crypto
import Foundation

/// Compact JWS (RFC 7515/7518) with ES256 and, for ID tokens, RS256. Every verification names
/// the algorithms it accepts, and a signature must use the algorithm of the key it names.
public enum JWS {
    /// A parsed, not yet verified, compact JWS.
    public struct Parsed: Sendable {
        /// The decoded protected header.
        public let header: [String: JSONValue]
        /// The raw payload bytes.
        public let payload: Data
        /// `header.payload` as sent (the signing input).
        public let signingInput: String
        /// The raw signature bytes.
        public let signature: Data
    }

    /// Why a JWS was refused.
    public enum Failure: Error, Sendable, Equatable {
        case malformed
        case unsupportedAlgorithm
        case badSignature
    }

    /// Signs `claims` with a tenant key, header `{alg, typ, kid}` (the key's algorithm and kid).
    public static func sign(claims: [String: JSONValue], typ: String, signingKey: SigningKey) throws -> String {
        try sign(
            claims: claims,
            header: [
                "alg": .string(signingKey.algorithm.rawValue), "typ": .string(typ), "kid": .string(signingKey.kid),
            ], signer: signingKey.sign)
    }

    /// Signs `claims` with a P-256 `key`, header `{alg: ES256, typ, kid}` (+ `extraHeader`).
    public static func sign(
        claims: [String: JSONValue], typ: String, kid: String?, key: P256.Signing.PrivateKey,
        extraHeader: [String: JSONValue] = [:]
    ) throws -> String {
        var header: [String: JSONValue] = ["alg": "ES256", "typ": .string(typ)]
        if let kid { header["kid"] = .string(kid) }
        for (k, v) in extraHeader { header[k] = v }
        return try sign(claims: claims, header: header) { try key.signature(for: $0).rawRepresentation }
    }

    /// Signs `claims` under `header` as it is (the caller names `alg`), with `signer` over the signing input.
    public static func sign(
        claims: [String: JSONValue], header: [String: JSONValue], signer: (Data) throws -> Data
    ) throws -> String {
        let input =
            Base64URL.encode(try JSONValue.object(header).encoded()) + "."
            + Base64URL.encode(try JSONValue.object(claims).encoded())
        return input + "." + Base64URL.encode(try signer(Data(input.utf8)))
    }

    /// Splits and decodes a compact JWS; checks nothing cryptographic.
    public static func parse(_ token: String) throws -> Parsed {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 16_384,
              let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              case .object(let header)? = try? JSONValue.decode(headerData)
        else { throw Failure.malformed }
        return Parsed(
            header: header, payload: payload, signingInput: String(parts[0]) + "." + String(parts[1]),
            signature: signature)
    }

    /// Verifies `parsed` with a tenant key: the header must name the key's algorithm, which must
    /// be one of `accepted` (so `none`, HS* and a swapped algorithm are refused).
    public static func verify(_ parsed: Parsed, key: VerificationKey, accepted: Set<SigningKey.Algorithm>) throws {
        guard let alg = parsed.header["alg"]?.stringValue, alg == key.algorithm.rawValue,
            accepted.contains(key.algorithm)
        else {
            throw Failure.unsupportedAlgorithm
        }
        guard key.isValidSignature(parsed.signature, for: Data(parsed.signingInput.utf8)) else {
            throw Failure.badSignature
        }
    }

    /// Verifies an ES256 signature of `parsed` with `key`; any other `alg` (none, HS*, RS*) is refused.
    public static func verify(_ parsed: Parsed, key: P256.Signing.PublicKey) throws {
        guard parsed.header["alg"]?.stringValue == "ES256" else { throw Failure.unsupportedAlgorithm }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature),
              key.isValidSignature(signature, for: Data(parsed.signingInput.utf8))
        else { throw Failure.badSignature }
    }
}
