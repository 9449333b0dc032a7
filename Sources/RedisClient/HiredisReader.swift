import CHiredis

/// Owns one hiredis `redisReader` and turns fed bytes into `RESPValue`s.
///
/// Not thread-safe: it is confined to the event loop of the channel whose decoder owns it.
/// Only hiredis's reader API is used; it never touches sockets and never blocks.
final class HiredisReader {
    private var reader: UnsafeMutablePointer<redisReader>?

    /// Creates the underlying reader with hiredis's default reply-object functions.
    init() throws(RedisError) {
        guard let reader = redisReaderCreate() else {
            throw .protocolError("redisReaderCreate failed (out of memory)")
        }
        // Keep hiredis's default `maxbuf` (16 KiB): an idle reader releases buffers that grew
        // larger than that (e.g. after a multi-MiB reply) instead of holding on to them.
        self.reader = reader
    }

    deinit {
        close()
    }

    /// Frees the reader. Later calls to `feed` and `next` do nothing.
    func close() {
        if let reader {
            redisReaderFree(reader)
            self.reader = nil
        }
    }

    /// Appends raw bytes to the reader's buffer (copied by hiredis).
    func feed(_ bytes: UnsafeRawBufferPointer) throws(RedisError) {
        guard let reader, let base = bytes.baseAddress, bytes.count > 0 else { return }
        if redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) != REDIS_OK {
            throw .protocolError(Self.errorString(reader))
        }
    }

    /// Appends raw bytes to the reader's buffer.
    func feed(_ bytes: [UInt8]) throws(RedisError) {
        let failure: RedisError? = bytes.withUnsafeBytes { raw -> RedisError? in
            do {
                try self.feed(raw)
                return nil
            } catch {
                return RedisError.wrapping(error)
            }
        }
        if let failure { throw failure }
    }

    /// Returns the next complete reply, or `nil` if more bytes are needed.
    func next() throws(RedisError) -> RESPValue? {
        guard let reader else { return nil }
        var replyPointer: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &replyPointer) == REDIS_OK else {
            throw .protocolError(Self.errorString(reader))
        }
        guard let replyPointer else { return nil }
        defer { freeReplyObject(replyPointer) }
        return try Self.convert(UnsafePointer(replyPointer.assumingMemoryBound(to: redisReply.self)))
    }

    /// Deep-copies a hiredis reply tree into a `RESPValue` (the caller frees the tree).
    private static func convert(_ pointer: UnsafePointer<redisReply>) throws(RedisError) -> RESPValue {
        let reply = pointer.pointee
        switch reply.type {
        case REDIS_REPLY_STRING:
            return .bulkString(bytes(reply.str, reply.len))
        case REDIS_REPLY_STATUS:
            return .simpleString(String(decoding: bytes(reply.str, reply.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(reply.str, reply.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(reply.integer))
        case REDIS_REPLY_NIL:
            return .null
        case REDIS_REPLY_ARRAY:
            let count = Int(reply.elements)
            guard count > 0, let elements = reply.element else { return .array([]) }
            var values: [RESPValue] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                guard let element = elements[index] else {
                    throw .protocolError("array element \(index) missing")
                }
                values.append(try convert(UnsafePointer(element)))
            }
            return .array(values)
        default:
            throw .protocolError("unknown reply type \(reply.type)")
        }
    }

    /// Copies `len` bytes (binary-safe: NULs and CRLF are kept).
    private static func bytes(_ start: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    private static func errorString(_ reader: UnsafeMutablePointer<redisReader>) -> String {
        let message = withUnsafeBytes(of: &reader.pointee.errstr) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return message.isEmpty ? "hiredis reader error \(reader.pointee.err)" : message
    }
}
