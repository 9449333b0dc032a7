import NIOCore

/// Makes an early answer arrive. When a response is complete before its request's body
/// (a 413, or any answer that did not read the body), closing the socket with the rest of
/// the body unread makes the kernel send a reset, and the client loses the answer it has
/// not read yet. Told ``RefuseRemainingInput``, this handler — on raw bytes, ahead of the
/// HTTP codec — sends FIN after the answer, then reads and discards what the client still
/// sends, at most `maxBytes` and for at most `maxTime` (neither of which the client can
/// raise), and closes; as nginx's lingering close does. A close asked for meanwhile waits
/// for that end.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A user outbound event: the rest of the input is refused (see ``EarlyAnswerHandler``).
    struct RefuseRemainingInput: Sendable {}

    private let maxBytes: Int
    private let maxTime: TimeAmount
    private var lingering = false
    private var outputClosed = false
    private var discarded = 0
    private var timer: Scheduled<Void>?

    init(maxBytes: Int, maxTime: Duration) {
        self.maxBytes = maxBytes
        self.maxTime = ConnectionDeadlines.amount(maxTime)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is RefuseRemainingInput else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        promise?.succeed(())
        guard !lingering else { return }
        lingering = true
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: maxTime) { loopBound.value.close(promise: nil) }
        closeOutput(context)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard lingering else {
            context.fireChannelRead(data)
            return
        }
        discarded += unwrapInboundIn(data).readableBytes
        if discarded > maxBytes { finish(context) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard lingering else {
            context.fireChannelReadComplete()
            return
        }
        // The HTTP side has stopped asking for bytes; the discarding goes on regardless.
        if context.channel.isActive { context.read() }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard lingering, mode == .all, timer != nil else {
            if mode == .output { outputClosed = true }
            context.close(mode: mode, promise: promise)
            return
        }
        // Closed when the lingering ends (or the client closes first).
        if let promise { context.channel.closeFuture.cascade(to: promise) }
        closeOutput(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// FIN after what has been written: the client reads the answer, then end of stream.
    private func closeOutput(_ context: ChannelHandlerContext) {
        guard !outputClosed else { return }
        outputClosed = true
        context.flush()
        context.close(mode: .output, promise: nil)
    }

    private func finish(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.close(mode: .all, promise: nil)
    }
}
