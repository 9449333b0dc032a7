import Foundation
import Testing
@testable import GatewayCore

@Suite("A push body cut to fit the providers' 4 KB")
struct PushPayloadFitTests {
    static func payload(body: String) -> PushPayload {
        let message = PushMessage(
            id: "msg_1", tenantID: "acme", clientID: "gateway:messages",
            content: PushContent(
                miniAppID: "shop", recipients: .users(["bob"]), texts: ["default": PushText(title: "Alice", body: body)]),
            createdAt: Date())
        return PushPayload(
            ClaimedDelivery(
                tenantID: "acme", messageID: "msg_1", deviceID: "d1", userID: "bob", provider: .fcm, token: "t",
                locale: nil, apnsEnvironment: nil, attempts: 0, message: message))
    }

    @Test("a body that fits is left as it is; one that does not keeps whole characters and ends in …")
    func cutsAtCharacters() {
        let size = { (payload: PushPayload) in payload.title.utf8.count + payload.body.utf8.count }
        #expect(Self.payload(body: "short").fitted(within: 100, size: size).body == "short")
        // Family emoji are one character of 18 bytes (five scalars): never split.
        let families = String(repeating: "👨‍👩‍👧", count: 50)
        let cut = Self.payload(body: families).fitted(within: 100, size: size)
        #expect(cut.body.hasSuffix(PushPayload.cutMark))
        #expect(size(cut) <= 100)
        let kept = cut.body.dropLast()
        #expect(kept.count == (100 - 5 - 3) / 18 && families.hasPrefix(kept), "\(kept.count) characters kept")
        // Nothing of the body fits: the mark alone.
        #expect(Self.payload(body: families).fitted(within: 6, size: size).body == PushPayload.cutMark)
    }
}
