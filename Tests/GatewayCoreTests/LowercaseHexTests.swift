import Foundation
import GatewayCore
import Testing

@Suite("Lowercase hex")
struct LowercaseHexTests {
    @Test("every byte as String(format: \"%02x\") writes it, in order")
    func everyByte() {
        let bytes = (0...255).map(UInt8.init) + [0xa0, 0x0f]
        #expect(LowercaseHex.string(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
        #expect(LowercaseHex.string([UInt8]()) == "")
    }
}
