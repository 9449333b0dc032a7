@testable import GatewayCore
import Testing

/// The engine-neutral rule both secure-storage stores apply: sizes, sealing, the cap.
@Suite("Secure-storage write: sized by key and value bytes, sealed per owner and key, held to the cap")
struct SecureStorageWriteTests {
    let owner = UserMiniAppKey(tenantID: "acme", userID: "u1", miniAppID: "app")

    @Test("sizes count UTF-8 bytes of key and value; values open only under their own owner and key")
    func sealedAndSized() throws {
        let write = try SecureStorageWrite(
            ["note": "✓✓", "k": ""], for: owner, maxBytes: 100, limits: .init(), sealer: Fixtures.sealer)
        let items = Dictionary(uniqueKeysWithValues: write.items.map { ($0.key, $0) })
        #expect(items["note"]?.size == 4 + 6 && items["k"]?.size == 1)
        let sealed = try #require(items["note"]?.sealed)
        #expect(!sealed.contains("✓"))
        #expect(try Fixtures.sealer.open(sealed, context: owner.storageSealingContext(key: "note")) == "✓✓")
        #expect(throws: (any Error).self) {
            try Fixtures.sealer.open(sealed, context: owner.storageSealingContext(key: "k"))
        }
    }

    @Test("growing past the cap is refused with the numbers; replacing counts the difference; shrinking always fits")
    func cap() throws {
        let write = try SecureStorageWrite(
            ["a": "123456789"], for: owner, maxBytes: 20, limits: .init(), sealer: Fixtures.sealer)
        // New key: 10 bytes on top of 5 used.
        #expect(try write.usage(now: 5, itemCount: 1) { _ in nil } == (15, 2))
        // Replacing a 4-byte item: +6.
        #expect(try write.usage(now: 14, itemCount: 3) { $0 == "a" ? 4 : nil } == (20, 3))
        #expect(throws: SecureStorageError.storageFull(used: 15, requested: 25, max: 20)) {
            try write.usage(now: 15, itemCount: 1) { _ in nil }
        }
        // Over a lowered cap already: a write that shrinks the usage still fits.
        #expect(try write.usage(now: 30, itemCount: 2) { _ in 12 } == (28, 2))
    }
}
