import Logging
import NIOCore
import NIOHTTPTypes

/// First handler of every client connection: sees the raw bytes (so a head that trickles
/// in byte by byte is timed from its first byte) and closes the connection when its
/// ``ConnectionDeadlines`` say it is overdue. ``RequestPhaseHandler``, behind the HTTP
/// codec, tells it where requests and responses begin and end. Each phase change is
/// published on the ``ClientConnection`` (overload shedding chooses by it), and a phase
/// that begins while the server is overloaded gets the shorter overload timeout.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var deadlines: ConnectionDeadlines
    private var timer: Scheduled<Void>?
    private var scheduledFor: NIODeadline?
    private let connection: ClientConnection?
    private let isOverloaded: @Sendable () -> Bool
    private let onTimeout: @Sendable (ConnectionDeadlines.Phase) -> Void

    /// - Parameters:
    ///   - connection: where the phase is published (nil: nowhere).
    ///   - isOverloaded: whether the server is overloaded now.
    ///   - onTimeout: told which phase timed out (metrics), on the event loop.
    init(
        limits: ConnectionLimits, connection: ClientConnection? = nil,
        isOverloaded: @escaping @Sendable () -> Bool = { false },
        onTimeout: @escaping @Sendable (ConnectionDeadlines.Phase) -> Void = { _ in }
    ) {
        deadlines = ConnectionDeadlines(limits: limits, now: .now())
        self.connection = connection
        self.isOverloaded = isOverloaded
        self.onTimeout = onTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        deadlines = ConnectionDeadlines(limits: deadlines.limits, now: now, overloaded: isOverloaded())
        connection?.enter(.awaitingHead, at: now)
        schedule(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadlines.phase == .idle {
            update(context) { $0.bytesArrived(now: $1, overloaded: isOverloaded()) }
        }
        context.fireChannelRead(data)
    }

    // Events from ``RequestPhaseHandler`` (same event loop).

    func headReceived(context: ChannelHandlerContext) {
        update(context) { deadlines, now in deadlines.headReceived(now: now) }
    }

    func endReceived(context: ChannelHandlerContext) {
        update(context) { deadlines, now in deadlines.endReceived(now: now) }
    }

    func responseEnded(context: ChannelHandlerContext) {
        update(context) { $0.responseEnded(now: $1, overloaded: isOverloaded()) }
    }

    /// Applies an event, publishes a phase change and re-arms the timer.
    private func update(_ context: ChannelHandlerContext, _ event: (inout ConnectionDeadlines, NIODeadline) -> Void) {
        let now = NIODeadline.now()
        let before = deadlines.phase
        event(&deadlines, now)
        if deadlines.phase != before { connection?.enter(deadlines.phase, at: now) }
        schedule(context)
    }

    /// Keeps one timer armed for the current deadline (re-armed only when it moved earlier;
    /// a timer that fires early re-arms for the later deadline).
    private func schedule(_ context: ChannelHandlerContext) {
        let deadline = deadlines.deadline
        if let scheduledFor, timer != nil, scheduledFor <= deadline { return }
        timer?.cancel()
        scheduledFor = deadline
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.fire(context)
        }
    }

    private func fire(_ context: ChannelHandlerContext) {
        timer = nil
        scheduledFor = nil
        guard context.channel.isActive else { return }
        if deadlines.isOverdue(now: .now()) {
            onTimeout(deadlines.phase)
            context.close(promise: nil)
        } else {
            schedule(context)
        }
    }
}

/// Behind the HTTP codec: reports request heads and ends, and response ends, to the
/// connection's ``ConnectionDeadlineHandler``.
final class RequestPhaseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var deadlines: (handler: ConnectionDeadlineHandler, context: ChannelHandlerContext)?

    func handlerAdded(context: ChannelHandlerContext) {
        guard let handler = try? context.pipeline.syncOperations.handler(type: ConnectionDeadlineHandler.self),
            let handlerContext = try? context.pipeline.syncOperations.context(
                handlerType: ConnectionDeadlineHandler.self)
        else { return }
        deadlines = (handler, handlerContext)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadlines = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let deadlines {
            switch unwrapInboundIn(data) {
            case .head: deadlines.handler.headReceived(context: deadlines.context)
            case .end: deadlines.handler.endReceived(context: deadlines.context)
            case .body: break
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let deadlines, case .end = unwrapOutboundIn(data) {
            deadlines.handler.responseEnded(context: deadlines.context)
        }
        context.write(data, promise: promise)
    }
}
