import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The connection's end of ``StoredAnswerFastPath``, behind the HTTP codec and ahead of
/// Hummingbird: a request the fast path can answer is swallowed (head to end) and answered
/// here, on the event loop; every other request is passed on untouched. While a request
/// passed on has not been answered, later ones are passed on too, so answers keep the order
/// of a pipelining client's requests.
final class StoredAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let fastPath: StoredAnswerFastPath
    private let connection: ClientConnection?
    /// Requests passed on whose responses have not ended.
    private var passedOn = 0
    /// The answer of the request being swallowed, written at its end.
    private var pending: StoredAnswerFastPath.Answer?
    /// A flush of written answers is due at the end of this event-loop tick.
    private var flushScheduled = false

    init(fastPath: StoredAnswerFastPath, connection: ClientConnection?) {
        self.fastPath = fastPath
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, let answer = fastPath.answer(head, connection: connection) {
                pending = answer
                return
            }
            passedOn += 1
        case .body:
            if pending != nil { return }
        case .end:
            if let answer = pending {
                pending = nil
                write(answer, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// Responses from Hummingbird (the fast path's own start at the next handler).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }

    private func write(_ answer: StoredAnswerFastPath.Answer, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        if let body = answer.body {
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        fastPath.record(answer)
        // Flushed once the event loop has read every ready connection of this tick: the
        // answers of one tick leave together, as the full path's do, instead of each waking
        // the client alone.
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = loopBound.value
            handler.flushScheduled = false
            context.flush()
        }
    }
}
