import Foundation
import GatewayCore
import Testing

@Suite("RFC3339: the one date-time parser of clients, files and flags")
struct RFC3339Tests {
    @Test("whole and fractional seconds, Z and offsets")
    func accepts() throws {
        #expect(RFC3339.date(from: "2026-11-22T10:00:00Z")?.timeIntervalSince1970 == 1_795_341_600)
        #expect(RFC3339.date(from: "2026-11-22T10:00:00.5Z")?.timeIntervalSince1970 == 1_795_341_600.5)
        #expect(RFC3339.date(from: "2026-11-22T10:00:00+09:00")?.timeIntervalSince1970 == 1_795_309_200)
    }

    @Test(
        "not RFC 3339 date-times",
        arguments: ["yesterday", "", "2026-11-22", "2026-11-22 10:00:00Z", "20261122T100000Z", "2026-11-22T10:00Z"])
    func refuses(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }
}
