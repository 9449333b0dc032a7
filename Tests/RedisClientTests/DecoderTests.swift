import NIOCore
import Testing

@testable import RedisClient

@Suite("RESP encoding and hiredis decoding (no server)")
struct DecoderTests {
    static let stream: [UInt8] = bytes(
        "+OK\r\n"
            + "-ERR boom\r\n"
            + ":-42\r\n"
            + "$-1\r\n"
            + "*-1\r\n"
            + "$0\r\n\r\n"
            + "*0\r\n"
            + "$6\r\na\0b\r\nc\r\n"
            + "*3\r\n:1\r\n*2\r\n$1\r\nx\r\n$-1\r\n+nested\r\n"
    )

    static let expected: [RESPValue] = [
        .simpleString("OK"),
        .error("ERR boom"),
        .integer(-42),
        .null,
        .null,
        .bulkString([]),
        .array([]),
        .bulkString(bytes("a\0b\r\nc")),
        .array([.integer(1), .array([.bulkString(bytes("x")), .null]), .simpleString("nested")]),
    ]

    @Test func decodesWholeStream() throws {
        let reader = try HiredisReader()
        try reader.feed(Self.stream)
        var values: [RESPValue] = []
        while let value = try reader.next() { values.append(value) }
        #expect(values == Self.expected)
    }

    @Test func decodesOneByteAtATime() throws {
        let reader = try HiredisReader()
        var values: [RESPValue] = []
        for byte in Self.stream {
            try reader.feed([byte])
            while let value = try reader.next() { values.append(value) }
        }
        #expect(values == Self.expected)
    }

    @Test func largeBulkStringInChunks() throws {
        let payload = (0..<(1 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var wire = bytes("$\(payload.count)\r\n")
        wire += payload
        wire += bytes("\r\n")
        let reader = try HiredisReader()
        var values: [RESPValue] = []
        var offset = 0
        while offset < wire.count {
            let end = min(offset + 4093, wire.count)
            try reader.feed(Array(wire[offset..<end]))
            while let value = try reader.next() { values.append(value) }
            offset = end
        }
        #expect(values == [.bulkString(payload)])
    }

    @Test func protocolErrorIsReported() throws {
        let reader = try HiredisReader()
        try reader.feed(bytes("?what\r\n"))
        #expect(throws: RedisError.self) { _ = try reader.next() }
    }

    @Test func encodesArrayOfBulkStrings() {
        let buffer = RESPEncoder.encode([bytes("SET"), bytes("k\r\n"), [], Array(repeating: 0, count: 12)])
        let encoded = Array(buffer.readableBytesView)
        var expected = bytes("*4\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$0\r\n\r\n$12\r\n")
        expected += Array(repeating: 0, count: 12) + bytes("\r\n")
        #expect(encoded == expected)
    }

    @Test func sha1KnownVectors() {
        #expect(SHA1.hexDigest([]) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hexDigest(bytes("abc")) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            SHA1.hexDigest(bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        )
    }
}
