import Foundation
import GatewayCore
import Testing

@Suite("Random UUIDs without /dev/urandom")
struct RandomUUIDTests {
    @Test("version 4, RFC 9562 variant, lowercase, what Foundation parses; 10,000 distinct")
    func shape() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let text = RandomUUID.lowercased()
            let parsed = try #require(UUID(uuidString: text), "\(text)")
            #expect(parsed.uuidString.lowercased() == text)
            let bytes = withUnsafeBytes(of: parsed.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version nibble of \(text)")
            #expect(bytes[8] >> 6 == 0b10, "variant bits of \(text)")
            seen.insert(text)
        }
        #expect(seen.count == 10_000)
    }
}
