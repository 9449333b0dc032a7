import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Behind the HTTP codec: notices a response that is complete before its request's body
/// (an early answer: a refused body, an error before the body was read). Hummingbird would
/// then read and discard the rest of the body, however long; instead, unless the rest is
/// small (at most ``keepAliveRemainder`` declared bytes, kept for the keep-alive), the
/// connection's ``LingeringCloseHandler`` is told to refuse it, and the answer arrives
/// before the connection closes.
final class EarlyAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Rest of a declared body read on after an early answer so the connection stays open.
    static let keepAliveRemainder = 64 * 1024

    /// Body bytes still expected (nil: unknown, chunked); nil when no request is being read.
    private var remaining: Int?
    private var readingBody = false
    private var status: HTTPResponse.Status?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            readingBody = true
            remaining = head.headerFields[.contentLength].flatMap { Int($0) }
        case .body(let buffer):
            remaining = remaining.map { $0 - buffer.readableBytes }
        case .end:
            readingBody = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            status = response.status
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            guard readingBody else { return }
            if status == .contentTooLarge || (remaining ?? .max) > Self.keepAliveRemainder {
                context.triggerUserOutboundEvent(LingeringCloseHandler.RefuseRemainingInput(), promise: nil)
            }
        }
    }
}
