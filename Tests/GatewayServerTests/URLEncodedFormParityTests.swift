import AsyncHTTPClient
import Foundation
import GatewayAPI
@_spi(Generated) import OpenAPIRuntime
@testable import GatewayServer
import TestSupport
import Testing

/// ``URLEncodedFormFields`` + ``FormFieldsDecoder`` (the token endpoint's form read from
/// bytes) against the generated decoder they replace: on the same body, the same
/// `TokenForm` or both a refusal.
@Suite("URL-encoded forms: the byte parser agrees with the generated decoder")
struct URLEncodedFormParityTests {
    typealias TokenForm = Components.Schemas.TokenForm

    /// The generated decoder's answer: the form, or nil for a refusal.
    static func generated(_ body: [UInt8]) async -> TokenForm? {
        try? await Converter(configuration: .init()).getRequiredRequestBodyAsURLEncodedForm(
            TokenForm.self, from: HTTPBody(body), transforming: { $0 })
    }

    /// The byte parser's answer: `.some(form)`, `.some(nil)` for a refusal, nil when it leaves
    /// the body to the generated decoder (not ASCII).
    static func fast(_ body: [UInt8]) -> TokenForm?? {
        switch URLEncodedFormFields.parse(body) {
        case .notASCII: return nil
        case .fields(let fields): return .some(try? FormFieldsDecoder.decode(TokenForm.self, from: fields))
        }
    }

    static func expectSame(_ body: [UInt8], _ comment: String) async {
        guard let fast = fast(body) else {
            #expect(body.contains { $0 >= 0x80 }, "left to the generated decoder although ASCII: \(comment)")
            return
        }
        let generated = await generated(body)
        #expect(fast == generated, "\(comment): byte parser \(String(describing: fast)), generated \(String(describing: generated))")
    }

    static let edgeCases: [String] = [
        "", "grant_type=refresh_token", "grant_type=refresh_token&", "grant_type=refresh_token&&",
        "&grant_type=x", "grant_type", "grant_type=x&junk", "=", "=x", "a=", "grant_type=", "grant_type=&code=",
        "grant_type=a=b", "grant_type==", "grant_type=x&grant_type=x", "grant_type=x&grant_type=y",
        "unknown=1&unknown=2&grant_type=x", "grant%5Ftype=x", "grant_type=a+b", "grant_type=a%2Bb",
        "grant_type=%", "grant_type=%4", "grant_type=%4g", "grant_type=%41%42", "grant_type=%c3%a9",
        "grant_type=%C3", "grant_type=%FF%FE", "grant_type=%00", "grant_type=a%20b%2", "grant+type=x",
        "grant%20type=x", "grant_type=x&refresh_token=%25", "client_id=a&client_secret=b&scope=openid+profile",
        "grant_type=refresh_token&refresh_token=abc&client_id=demo-app&scope=openid%20offline_access",
        "subject_token=a.b.c&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Ajwt&resource=urn:superapp:miniapp:x",
        "grant_type=x;code=y", "grant_type=x\r\n&code=y", "%=x", "%%=x", "grant_type=%E2%82%AC%F0%9F%98%80",
    ]

    @Test("hand-picked bodies: percent-encoding, +, repeated and empty keys and values, invalid escapes")
    func edgeCases() async {
        for body in Self.edgeCases {
            await Self.expectSame(Array(body.utf8), body)
        }
    }

    @Test("8 KiB bodies: one long value, many short pairs, a repeated key at the end, an invalid escape at the end")
    func largeBodies() async {
        let long = String(repeating: "x", count: 8_000)
        let pairs = (0..<700).map { "k\($0)=v" }.joined(separator: "&")
        for body in [
            "grant_type=refresh_token&refresh_token=\(long)", pairs + "&grant_type=x",
            pairs + "&grant_type=x&grant_type=x", "refresh_token=\(long)%", "refresh_token=\(long)&x",
            String(repeating: "%41", count: 2_700),
        ] {
            await Self.expectSame(Array(body.utf8), "\(body.prefix(40))… (\(body.utf8.count) bytes)")
        }
    }

    @Test("bodies with bytes outside ASCII (UTF-8 and not) are left to the generated decoder")
    func notASCII() {
        for body: [UInt8] in [Array("scope=é".utf8), [0x61, 0x3D, 0xFF], Array("a=\u{301}b".utf8)] {
            #expect(URLEncodedFormFields.parse(body) == .notASCII)
        }
    }

    @Test("20,000 random bodies over the form's alphabet agree (seeded)")
    func fuzzed() async {
        var random = SeededRandom(seed: 20_261_126)
        let pieces = [
            "grant_type", "code", "refresh_token", "client_id", "scope", "resource", "x", "=", "=", "&", "&", "+", "%",
            "%2", "%41", "%2B", "%26", "%3D", "%C3%A9", "%FF", "%zz", "a", "b", " ", ";", "\r\n",
        ]
        for _ in 0..<20_000 {
            let count = Int(random.next() % 12)
            let body = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            await Self.expectSame(Array(body.utf8), body)
        }
    }

    @Test("over HTTP: a repeated key is 400 invalid_request, a malformed form is refused as an empty one, a valid refresh works")
    func overHTTP() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let tokens = try await kit.tokens()
            func post(_ body: String) async throws -> (Int, [String: String]) {
                var request = HTTPClientRequest(url: "\(kit.base)/t/demo/oauth2/token")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(Array(body.utf8))
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                let bytes = try await response.body.collect(upTo: 1 << 20)
                let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
                return (Int(response.status.code), json.compactMapValues { $0 as? String })
            }
            let refresh = "grant_type=refresh_token&client_id=\(kit.clientID)&refresh_token=\(tokens.refreshToken!)"
            let repeated = try await post(refresh + "&grant_type=refresh_token")
            #expect(repeated.0 == 400 && repeated.1["error"] == "invalid_request", "\(repeated)")
            let empty = try await post("")
            #expect(empty.0 == 401 && empty.1["error"] == "invalid_client", "\(empty)")
            for malformed in [refresh + "&junk", "&" + refresh] {
                let (status, body) = try await post(malformed)
                #expect(status == empty.0 && body["error"] == empty.1["error"], "\(malformed): \(status) \(body)")
            }
            let (status, body) = try await post(refresh.replacingOccurrences(of: "_token&", with: "%5Ftoken&"))
            #expect(status == 200 && body["refresh_token"] != nil, "\(status) \(body)")
        }
    }
}
