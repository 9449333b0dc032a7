import NIOCore

/// Outbound user event: the subscriber ended the subscription (the stream finishes normally).
struct RedisSubscriptionEndEvent: Sendable {}

/// Drives a dedicated subscriber connection.
///
/// On activation it writes the handshake (AUTH/SELECT) and `SUBSCRIBE` in one flush, consumes the
/// handshake replies, waits for one confirmation per channel (then succeeds `subscribed`), and
/// from then on yields every `message` push into the subscription's stream.
final class RedisPubSubHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    typealias Continuation = AsyncThrowingStream<RedisSubscription.Element, any Error>.Continuation

    private let commands: [ByteBuffer]
    private var handshakeRepliesLeft: Int
    private var confirmationsLeft: Int
    private let continuation: Continuation
    private let subscribed: EventLoopPromise<Void>
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    /// Why the connection ends; `nil` means a normal end (the subscriber closed it).
    private var endError: RedisError? = .connectionFailed("subscription connection closed")
    private var ended = false

    init(
        handshake: [ByteBuffer],
        subscribe: ByteBuffer,
        channelCount: Int,
        timeout: TimeAmount,
        continuation: Continuation,
        subscribed: EventLoopPromise<Void>
    ) {
        self.commands = handshake + [subscribe]
        self.handshakeRepliesLeft = handshake.count
        self.confirmationsLeft = channelCount
        self.timeout = timeout
        self.continuation = continuation
        self.subscribed = subscribed
    }

    func channelActive(context: ChannelHandlerContext) {
        for command in self.commands {
            context.write(self.wrapOutboundOut(command), promise: nil)
        }
        context.flush()
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(in: self.timeout) {
            self.fail(context: context, error: .timeout)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = self.unwrapInboundIn(data)
        if case .error(let message) = value {
            self.fail(context: context, error: .server(message))
            return
        }
        if self.handshakeRepliesLeft > 0 {
            self.handshakeRepliesLeft -= 1
            return
        }
        guard case .array(let parts) = value, let kind = parts.first?.string else { return }
        switch kind {
        case "message" where parts.count == 3:
            guard let channel = parts[1].string, let payload = parts[2].bytes else { return }
            self.continuation.yield((channel: channel, message: payload))
        case "subscribe":
            self.confirmationsLeft -= 1
            if self.confirmationsLeft == 0 {
                self.timer?.cancel()
                self.timer = nil
                self.subscribed.succeed(())
            }
        default:
            break  // unsubscribe confirmations, pongs, ...
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let close = event as? RedisCloseEvent {
            self.close(context: context, endError: close.error, promise: promise)
        } else if event is RedisSubscriptionEndEvent {
            self.close(context: context, endError: nil, promise: promise)
        } else {
            context.triggerUserOutboundEvent(event, promise: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.fail(context: context, error: RedisError.wrapping(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.end()
    }

    private func fail(context: ChannelHandlerContext, error: RedisError) {
        self.close(context: context, endError: error, promise: nil)
    }

    private func close(context: ChannelHandlerContext, endError: RedisError?, promise: EventLoopPromise<Void>?) {
        if !self.ended {
            self.endError = endError
        }
        context.close(promise: promise)
    }

    private func end() {
        guard !self.ended else { return }
        self.ended = true
        self.timer?.cancel()
        self.timer = nil
        let error = self.endError
        self.subscribed.fail(error ?? .connectionFailed("subscription closed before it was confirmed"))
        if let error {
            self.continuation.finish(throwing: error)
        } else {
            self.continuation.finish()
        }
    }
}
