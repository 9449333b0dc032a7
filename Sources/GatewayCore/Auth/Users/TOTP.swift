import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 6 digits,
/// 30-second steps, the step before and after accepted for clock drift. What authenticator
/// apps (Google Authenticator, 1Password, ...) speak through an `otpauth://` URI.
public struct TOTP: Sendable {
    /// Seconds per step.
    public static let period: Int64 = 30
    /// Digits per code.
    public static let digits = 6
    /// Steps accepted either side of the current one.
    public static let drift: Int64 = 1

    let secret: [UInt8]

    /// - Parameter secret: the shared key (RFC 4226 recommends 160 bits).
    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// From the Base32 text authenticator apps show; nil when it is not Base32.
    public init?(base32 text: String) {
        guard let bytes = Base32.decode(text), !bytes.isEmpty else { return nil }
        self.secret = bytes
    }

    /// A new random 160-bit secret, as Base32 (what `gatewayctl user update --totp` stores and shows once).
    public static func newSecret() -> String {
        Base32.encode((0 ..< 20).map { _ in UInt8.random(in: .min ... .max) })
    }

    /// The step `date` falls in.
    public static func step(at date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) / period
    }

    /// The code of `step` (RFC 4226 §5.3 dynamic truncation), zero-padded.
    public func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: Self.digits - text.count) + text
    }

    /// The step `code` belongs to, within `drift` of `date`'s step; nil when it matches none.
    /// Compares in constant time per candidate.
    public func matchingStep(_ code: String, at date: Date) -> Int64? {
        guard code.count == Self.digits, code.utf8.allSatisfy({ (0x30 ... 0x39).contains($0) }) else { return nil }
        let now = Self.step(at: date)
        var found: Int64?
        for step in (now - Self.drift) ... (now + Self.drift) where ConstantTime.equals(self.code(step: step), code) {
            found = found ?? step
        }
        return found
    }

    /// The provisioning URI authenticator apps scan (Key Uri Format): issuer and account label.
    public static func provisioningURI(secret: String, issuer: String, account: String) -> String {
        let encode = AuthorizationServer.formEncode
        return
            "otpauth://totp/\(encode(issuer)):\(encode(account))?secret=\(secret)&issuer=\(encode(issuer))&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }

}

/// RFC 4648 Base32 (upper-case alphabet, no padding on output; padding, spaces and case
/// ignored on input), the encoding of TOTP secrets.
enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.uppercased().utf8 where c != 0x3D && c != 0x20 {
            guard let value = alphabet.firstIndex(of: c) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
