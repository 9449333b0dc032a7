import Foundation
import GatewayAPI
import GatewayCore

/// A tenant id no other test (sharing the same Redis) uses.
func uniqueTenantID(_ prefix: String) -> String {
    prefix + "-" + String(UUID().uuidString.lowercased().prefix(8))
}

extension FakePlatform {
    /// One published mini app `hello` (version v1) with metadata in the default language and Japanese.
    func seedHello() {
        set { state in
            state.apps = [
                PlatformMiniAppInfo(
                    id: "hello", displayName: "Hello", icon: "https://cdn.example/hello.png",
                    version: .init(versionTag: "1.0.0", versionId: "v1"), promotionalText: "Says hello"),
                PlatformMiniAppInfo(
                    id: "alpha", displayName: "Alpha", version: .init(versionTag: "2.0", versionId: "a2")),
            ]
            state.infos["draft"] = []
            state.metadata["hello/v1/"] = PlatformMetadata(
                reqPermissions: [.init(name: "rakuten.miniapp.user.USER_NAME", reason: "To greet you")],
                optPermissions: [.init(name: "rakuten.miniapp.device.LOCATION", reason: "To find shops")],
                accessTokenPermissions: [.init(audience: "rae", scopes: ["idinfo_read_openid"])],
                customMetaData: ["hostAppRandomTestKey": "metadata value"]
            )
            state.metadata["hello/v1/ja"] = PlatformMetadata(
                reqPermissions: [.init(name: "rakuten.miniapp.user.USER_NAME", reason: "挨拶のため")],
                optPermissions: [.init(name: "rakuten.miniapp.device.LOCATION", reason: nil)],
                accessTokenPermissions: [.init(audience: "rae", scopes: ["idinfo_read_openid"])],
                customMetaData: [:]
            )
            state.fileManifests["hello/v1"] = PlatformFileManifest(
                files: ["\(baseURL)/files/hello-v1.zip", "\(baseURL)/files/index.html"], publicKeyID: nil,
                signature: nil)
            // The platform's host object carries the host's key, in both spellings the SDKs know.
            let miniapp = try! JSONValue.decode(JSONEncoder().encode(state.apps[0]))
            state.previews["PREVIEW1"] = .object([
                "miniapp": miniapp,
                "host": .object([
                    "id": "host-1", "name": "Preview Host", "subscriptionKey": "host-secret-key-1",
                    "subscriptionkey": "host-secret-key-2",
                ]),
            ])
        }
    }
}
