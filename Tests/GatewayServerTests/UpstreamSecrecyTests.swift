import Foundation
import GatewayAPI
import GatewayCore
import Testing

/// What a client can make the gateway send upstream, and what of the upstream's answers
/// reaches the client: never the tenant's secrets.
@Suite("Upstream secrecy: no key leaves through answers, no path escapes its segment")
struct UpstreamSecrecyTests {
    @Test("a preview answer carries the host's id only, never its subscription key (either spelling)")
    func previewHidesHostKey() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, port in
                let id = uniqueTenantID("pvkey")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                // The generated client refuses members the contract does not declare.
                let preview = try await client.getPreview(path: .init(tenant: id, code: "PREVIEW1")).ok.body.json
                #expect(preview.host.id == "host-1")
                #expect(preview.miniApp.id == "hello")
                let raw = try await harness.signedInGET("/v1/preview/PREVIEW1", tenant: id, port: port)
                #expect(raw.status == 200)
                for secret in ["host-secret-key-1", "host-secret-key-2", fake.subscriptionKey, "subscription"] {
                    #expect(
                        !raw.body.lowercased().contains(secret.lowercased()),
                        "preview answer leaks \(secret): \(raw.body)")
                }
            }
        }
    }

    @Test("dot segments and encoded slashes never reach the platform; `.`/`..` ids are 400")
    func noDotSegmentsUpstream() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("dots")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let hostile = [
                    ".", "..", "...", "%2E", "%2E%2E", "%2e%2e", ".%2E", "a%2Fb", "a%2fb", "..%2F..", "%2F", "a%5Cb",
                    "%252E%252E",
                ]
                var paths: [String] = []
                for segment in hostile {
                    paths.append("/v1/miniapps/\(segment)")
                    paths.append("/v1/miniapps/app-one/versions/\(segment)/manifest")
                    paths.append("/v1/miniapps/\(segment)/versions/v1/manifest")
                    paths.append("/v1/miniapps/app-one/versions/\(segment)/bundle")
                    paths.append("/v1/preview/\(segment)")
                }
                for path in paths {
                    let answer = try await harness.signedInGET(path, tenant: id, port: port)
                    #expect(answer.status == 400 || answer.status == 404, "\(path) → \(answer.status) \(answer.body)")
                    #expect(answer.status != 200)
                }
                // The very request of the report.
                let report = try await harness.signedInGET(
                    "/v1/miniapps/app-one/versions/../manifest", tenant: id, port: port)
                #expect(report.status == 400 || report.status == 404)
                for dots in ["..", "."] {
                    let refused = try await harness.signedInGET(
                        "/v1/miniapps/hello/versions/\(dots)/manifest", tenant: id, port: port)
                    #expect(refused.status == 400, "\(dots): \(refused.status) \(refused.body)")
                    #expect(refused.body.contains("invalid_request"))
                }
                // A normal call still goes through, so the fake's record is not empty by accident.
                #expect(
                    try await harness.signedInGET("/v1/miniapps/hello/versions/v1/manifest", tenant: id, port: port)
                        .status == 200)
                #expect(!fake.requests.isEmpty)
                for request in fake.requests {
                    let segments = request.path.split(separator: "/", omittingEmptySubsequences: false)
                    #expect(!segments.contains { $0 == "." || $0 == ".." }, "upstream path \(request.path)")
                    #expect(!request.path.lowercased().contains("%2f"), "upstream path \(request.path)")
                    #expect(!request.path.lowercased().contains("%2e"), "upstream path \(request.path)")
                }
            }
        }
    }

    @Test("upstream path segments: unreserved bytes pass, everything else is encoded, dot segments refused")
    func pathSegmentEncoding() throws {
        #expect(try UpstreamPathSegment.encode("app-one_v1.2~x") == "app-one_v1.2~x")
        #expect(try UpstreamPathSegment.encode("a/b") == "a%2Fb")
        #expect(try UpstreamPathSegment.encode("a?b#c") == "a%3Fb%23c")
        #expect(try UpstreamPathSegment.encode("%2E") == "%252E")
        #expect(try UpstreamPathSegment.encode("日") == "%E6%97%A5")
        #expect(try UpstreamPathSegment.encode("...") == "...")
        for refused in ["", ".", ".."] {
            #expect(throws: UpstreamError.invalidPathSegment) { try UpstreamPathSegment.encode(refused) }
        }
    }
}
