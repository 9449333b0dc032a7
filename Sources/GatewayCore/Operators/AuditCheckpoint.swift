import Crypto
import Foundation

/// Where a chain of the audit trail starts once retention pruned its head (issue 48): the
/// last pruned record's sequence, hash and time, signed. The chain verifies from here: the
/// next record must carry this hash as its previous one. Retention only prunes records that
/// verified, so the checkpoint vouches for them; a database writer without the master key
/// cannot sign one, so cutting more records off and moving the checkpoint is caught.
public struct AuditCheckpoint: Sendable, Equatable, Codable {
    /// The tenant's id, or ``AuditChain/platform``.
    public var chain: String
    /// The last pruned record's sequence.
    public var sequence: Int64
    /// The last pruned record's hash (what the next record names as previous).
    public var hash: String
    /// The last pruned record's time.
    public var timeMs: Int64
    /// When it was pruned.
    public var prunedAtMs: Int64
    /// Ed25519 over ``signedText``, base64url.
    public var signature: String

    public init(chain: String, sequence: Int64, hash: String, timeMs: Int64, prunedAtMs: Int64, signature: String) {
        self.chain = chain
        self.sequence = sequence
        self.hash = hash
        self.timeMs = timeMs
        self.prunedAtMs = prunedAtMs
        self.signature = signature
    }

    /// What is signed: every field but the signature, in a fixed order.
    var signedText: String {
        "superapp-gateway audit checkpoint v1\n\(chain)\n\(sequence)\n\(hash)\n\(timeMs)\n\(prunedAtMs)"
    }
}

/// Signs and checks ``AuditCheckpoint``s with an Ed25519 key derived (HKDF) from the master
/// key: every replica and `gatewayctl` on the database derive the same key, and
/// ``publicKey`` lets anyone holding an export check a checkpoint without the master key.
public struct AuditCheckpointSigner: Sendable {
    private let key: Curve25519.Signing.PrivateKey

    public init(masterKey: MasterKey) {
        let seed = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: masterKey.symmetricKey, info: Data("superapp-gateway audit checkpoint v1".utf8),
            outputByteCount: 32)
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed.withUnsafeBytes { Data($0) })
        } catch {
            preconditionFailure("a 32-byte seed is always an Ed25519 private key: \(error)")
        }
    }

    /// The public key, base64url (raw 32 bytes).
    public var publicKey: String { Base64URL.encode(key.publicKey.rawRepresentation) }

    /// A checkpoint after `row` (the last record pruned), signed.
    public func checkpoint(after row: AuditRow, prunedAt: Date) throws -> AuditCheckpoint {
        var checkpoint = AuditCheckpoint(
            chain: row.chain, sequence: row.sequence, hash: row.hash, timeMs: row.timeMs,
            prunedAtMs: StoreClock.milliseconds(prunedAt), signature: "")
        checkpoint.signature = Base64URL.encode(try key.signature(for: Data(checkpoint.signedText.utf8)))
        return checkpoint
    }

    /// Whether `checkpoint` was signed by this key and not altered since.
    public func holds(_ checkpoint: AuditCheckpoint) -> Bool {
        guard let signature = Base64URL.decode(checkpoint.signature) else { return false }
        return key.publicKey.isValidSignature(signature, for: Data(checkpoint.signedText.utf8))
    }
}
