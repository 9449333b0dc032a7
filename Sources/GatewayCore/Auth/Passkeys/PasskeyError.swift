/// Why a WebAuthn ceremony's answer is refused (WebAuthn Level 3 §7.1, §7.2). The gateway
/// shows people one message for all of them; the case is for the audit trail and metrics.
public enum PasskeyError: Error, Equatable, Sendable {
    /// The credential JSON, its base64url members or what they hold cannot be read.
    case malformed(String)
    /// The client data is for the other ceremony (`webauthn.create` against `webauthn.get`).
    case wrongCeremony
    /// The client data's challenge is not the one this ceremony issued.
    case challengeMismatch
    /// The client data's origin is not one of the relying party's.
    case originNotAllowed(String)
    /// The ceremony ran in a cross-origin frame.
    case crossOrigin
    /// The authenticator data is for another RP ID.
    case rpIDMismatch
    /// The authenticator did not test the user's presence.
    case userNotPresent
    /// The authenticator did not verify the user (a PIN or biometrics); required here.
    case userNotVerified
    /// The credential is not the one asked about (its ID, or the user it belongs to).
    case credentialMismatch
    /// The signature does not verify with the credential's key.
    case signatureInvalid
    /// The signature counter did not move forward: the authenticator may have been cloned.
    case counterWentBack(stored: UInt32, received: UInt32)
    /// The backup-eligible flag differs from the one registered (it never changes).
    case backupEligibilityChanged
}
