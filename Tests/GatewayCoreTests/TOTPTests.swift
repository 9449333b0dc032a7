import Foundation
@testable import GatewayCore
import Testing

@Suite("TOTP (RFC 6238)")
struct TOTPTests {
    /// RFC 6238 Appendix B, SHA-1 key "12345678901234567890": our 6 digits are the last 6 of its 8.
    @Test(
        "the RFC 6238 SHA-1 test vectors",
        arguments: [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
            (2_000_000_000, "279037"), (20_000_000_000, "353130"),
        ] as [(Int64, String)])
    func vectors(time: Int64, code: String) throws {
        let totp = try #require(TOTP(base32: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
        #expect(totp.code(step: time / TOTP.period) == code)
        #expect(totp.matchingStep(code, at: Date(timeIntervalSince1970: TimeInterval(time))) == time / TOTP.period)
    }

    @Test("one step of drift either way is accepted, two are not; malformed codes never match")
    func drift() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let step = TOTP.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now) == step + 1)
        #expect(
            totp.matchingStep(totp.code(step: step - 2), at: now) == nil
                || totp.code(step: step - 2) == totp.code(step: step))
        for bad in ["", "12345", "1234567", "12a456", "１２３４５６"] { #expect(totp.matchingStep(bad, at: now) == nil) }
    }

    @Test("Base32 round-trips secrets; new secrets are 160 bits; the provisioning URI escapes its labels")
    func base32AndURI() throws {
        let secret = TOTP.newSecret()
        #expect(secret.count == 32)
        #expect(Base32.decode(secret)?.count == 20)
        #expect(Base32.encode(Array("12345678901234567890".utf8)) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(Base32.decode("gezd gnbv gy3t qojq gezd gnbv gy3t qojq") == Array("12345678901234567890".utf8))
        #expect(Base32.decode("GEZ1") == nil)
        #expect(TOTP.provisioningURI(secret: "ABC", issuer: "Acme App", account: "al&ice")
            == "otpauth://totp/Acme%20App:al%26ice?secret=ABC&issuer=Acme%20App&algorithm=SHA1&digits=6&period=30")
    }
}
