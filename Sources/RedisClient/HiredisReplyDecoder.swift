import NIOCore

/// Inbound handler: feeds received bytes to a hiredis reader and emits one `RESPValue` per reply.
///
/// After each read it drains every complete reply. On a protocol error it fires
/// `RedisError.protocolError` down the pipeline and closes the channel. The reader is freed in
/// `handlerRemoved` (which NIO calls when the channel closes).
final class HiredisReplyDecoder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = RESPValue

    private var reader: HiredisReader?
    private var failed = false

    init() {}

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            self.reader = try HiredisReader()
        } catch {
            self.fail(context: context, error: error)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.reader?.close()
        self.reader = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.failed, let reader = self.reader else { return }
        let buffer = self.unwrapInboundIn(data)
        do {
            try buffer.withUnsafeReadableBytes { try reader.feed($0) }
            // `reader` stays alive while we hold it; if a downstream handler closes the channel
            // re-entrantly, `close()` makes `next()` return nil instead of touching freed memory.
            while !self.failed, let value = try reader.next() {
                context.fireChannelRead(self.wrapInboundOut(value))
            }
        } catch {
            self.fail(context: context, error: RedisError.wrapping(error))
        }
    }

    private func fail(context: ChannelHandlerContext, error: RedisError) {
        guard !self.failed else { return }
        self.failed = true
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }
}
