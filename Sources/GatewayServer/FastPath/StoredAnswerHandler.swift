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
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        fastPath.record(answer)
    }
}
