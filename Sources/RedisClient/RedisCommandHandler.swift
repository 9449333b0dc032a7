import NIOCore

/// One encoded command on its way to the server, with the promise for its reply.
struct RedisCommandRequest: Sendable {
    var payload: ByteBuffer
    var promise: EventLoopPromise<RESPValue>
}

/// Outbound user event: fail everything in flight with `error` and close the channel.
struct RedisCloseEvent: Sendable {
    var error: RedisError
}

/// Pipelining handler: writes commands as they come and matches replies to a FIFO of promises.
///
/// - Many commands may be in flight; flushes issued in the same event-loop tick are coalesced.
/// - One timer watches the oldest in-flight command (all share the same timeout, so the head
///   always expires first). When it expires the caller gets `RedisError.timeout` and the
///   connection is closed, because later replies could no longer be matched to their commands;
///   the remaining callers get `RedisError.connectionFailed`.
final class RedisCommandHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RedisCommandRequest
    typealias OutboundOut = ByteBuffer

    private struct InFlight {
        var promise: EventLoopPromise<RESPValue>
        var deadline: NIODeadline
    }

    private let commandTimeout: TimeAmount
    private var inFlight = CircularBuffer<InFlight>(initialCapacity: 64)
    private var timer: Scheduled<Void>?
    private var flushScheduled = false
    /// Set once the connection can no longer serve commands; new writes fail with it.
    private var failure: RedisError?

    init(commandTimeout: TimeAmount) {
        self.commandTimeout = commandTimeout
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = self.unwrapOutboundIn(data)
        if let failure = self.failure {
            request.promise.fail(failure)
            promise?.fail(failure)
            return
        }
        let deadline = NIODeadline.now() + self.commandTimeout
        self.inFlight.append(InFlight(promise: request.promise, deadline: deadline))
        if self.timer == nil {
            self.armTimer(context: context, deadline: deadline)
        }
        context.write(self.wrapOutboundOut(request.payload), promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        // Coalesce: every write already queued on the event loop lands before this flush runs.
        guard !self.flushScheduled else { return }
        self.flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            if self.failure == nil {
                context.flush()
            }
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let close = event as? RedisCloseEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        self.failAll(close.error)
        context.close(promise: promise)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = self.unwrapInboundIn(data)
        guard let head = self.inFlight.popFirst() else {
            if self.failure == nil {
                self.failAll(.protocolError("reply without a pending command: \(value)"))
                context.close(promise: nil)
            }
            return
        }
        head.promise.succeed(value)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.failAll(RedisError.wrapping(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.failAll(.connectionFailed("connection closed"))
        self.timer?.cancel()
        self.timer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.failAll(.connectionFailed("connection closed"))
        self.timer?.cancel()
        self.timer = nil
    }

    // MARK: Private

    /// Marks the connection unusable (first error wins) and fails every pending command.
    private func failAll(_ error: RedisError) {
        if self.failure == nil {
            self.failure = error
        }
        let failure = self.failure ?? error
        while let pending = self.inFlight.popFirst() {
            pending.promise.fail(failure)
        }
    }

    private func armTimer(context: ChannelHandlerContext, deadline: NIODeadline) {
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.timerFired(context: context)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        self.timer = nil
        guard self.failure == nil, let head = self.inFlight.first else { return }
        guard head.deadline <= .now() else {
            // The command this timer was armed for has been answered; watch the new head.
            self.armTimer(context: context, deadline: head.deadline)
            return
        }
        self.inFlight.removeFirst()
        head.promise.fail(RedisError.timeout)
        self.failAll(.connectionFailed("connection closed after a command timed out"))
        context.close(promise: nil)
    }
}
