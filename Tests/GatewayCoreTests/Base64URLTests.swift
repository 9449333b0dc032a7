import Foundation
import GatewayCore
import Testing

/// Base64URL encodes and decodes on bytes (issue 32). The Foundation route it replaced is the
/// reference: the same encodings, and every text the new decoder accepts decodes as before.
@Suite("Base64URL on bytes agrees with Foundation's base64")
struct Base64URLTests {
    /// The implementation before issue 32, kept as the reference.
    enum Reference {
        static func encode(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        static func decode(_ text: String) -> Data? {
            var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            guard !s.contains("=") || text.hasSuffix("=") else { return nil }
            while s.count % 4 != 0 { s += "=" }
            return Data(base64Encoded: s)
        }
    }

    @Test("every length 0-300 encodes as Foundation does and decodes back")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Reference.encode(bytes))
            #expect(Base64URL.decode(encoded) == Data(bytes))
            #expect(Base64URL.decode(encoded[...]) == Data(bytes))  // a substring, as JWS parts are
            #expect(Base64URL.isEncoding(encoded, ofByteCount: length))
            #expect(!Base64URL.isEncoding(encoded + "A", ofByteCount: length))
        }
        #expect(Base64URL.random(byteCount: 32).utf8.count == 43)
        #expect(Base64URL.random(byteCount: 13).utf8.count == 18)
        #expect(Base64URL.random() != Base64URL.random())
    }

    @Test("fuzzed text: what the decoder accepts, Foundation decodes to the same bytes")
    func fuzzedText() {
        let pieces = ["A", "Q", "w", "-", "_", "+", "/", "=", "==", " ", "\n", "é", "\0", "AAAA", "QQ", "QUI", "%"]
        var generator = SystemRandomNumberGenerator()
        var accepted = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator))
                .map { _ in pieces.randomElement(using: &generator)! }.joined()
            guard let decoded = Base64URL.decode(text) else { continue }
            accepted += 1
            #expect(Reference.decode(text) == decoded, "\(text.debugDescription)")
        }
        #expect(accepted > 1_000)
    }

    @Test("malformed text is refused: foreign bytes, impossible lengths, misplaced padding, stray bits")
    func refusals() {
        for text in ["Q", "QQ=", "QQ===", "Q===", "QQ=A", "=QQQ", "QQ Q", "QQ\nQ", "Qé==", "QR", "QUJ", "====", "AAAAA"] {
            #expect(Base64URL.decode(text) == nil, "\(text.debugDescription)")
        }
        #expect(Base64URL.decode("") == Data())
        #expect(Base64URL.decode("QQ") == Data("A".utf8))
        #expect(Base64URL.decode("QQ==") == Data("A".utf8))
        #expect(Base64URL.decode("QUI") == Data("AB".utf8))
        #expect(Base64URL.decode("-_-_") == Base64URL.decode("+/+/"))
        #expect(Base64URL.isEncoding("-_-_", ofByteCount: 3) && !Base64URL.isEncoding("+/+/", ofByteCount: 3))
        #expect(!Base64URL.isEncoding("QQ==", ofByteCount: 1) && !Base64URL.isEncoding("Q Q", ofByteCount: 2))
    }
}
