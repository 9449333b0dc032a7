import NIOCore

/// Encodes commands as RESP arrays of bulk strings (the only form Redis requires of clients).
enum RESPEncoder {
    private static let crlf: [UInt8] = [13, 10]

    /// Encodes one command (name and arguments) into a fresh buffer.
    static func encode(_ arguments: [[UInt8]]) -> ByteBuffer {
        var capacity = 16
        for argument in arguments { capacity += argument.count + 16 }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(capacity)
        encode(arguments, into: &buffer)
        return buffer
    }

    /// Appends `*N\r\n` followed by `$len\r\n<bytes>\r\n` for every argument.
    static func encode(_ arguments: [[UInt8]], into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "*"))
        writeDecimal(arguments.count, into: &buffer)
        buffer.writeBytes(crlf)
        for argument in arguments {
            buffer.writeInteger(UInt8(ascii: "$"))
            writeDecimal(argument.count, into: &buffer)
            buffer.writeBytes(crlf)
            buffer.writeBytes(argument)
            buffer.writeBytes(crlf)
        }
    }

    /// Writes a non-negative integer in ASCII decimal without allocating a `String`.
    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        precondition(value >= 0)
        var digitCount = 1
        var scan = value / 10
        while scan > 0 {
            digitCount += 1
            scan /= 10
        }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: digitCount) { out in
            var remaining = value
            for index in stride(from: digitCount - 1, through: 0, by: -1) {
                out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
            return digitCount
        }
    }
}
