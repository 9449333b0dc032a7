import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The loopback listener of a native app's sign-in (RFC 8252 §7.3): bound to 127.0.0.1 on a
/// port the system picks, it answers the browser's one redirect back with a short page and
/// hands over its query. Anything but `GET <path>?…` gets 404; the first matching request
/// wins and the listener closes.
final class LoopbackRedirectReceiver: Sendable {
    /// The bound port.
    let port: Int
    /// The redirect URI to register for this sign-in.
    var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    private let path: String
    private let channel: any Channel
    private let queries: AsyncStream<[String: String]>

    private init(port: Int, path: String, channel: any Channel, queries: AsyncStream<[String: String]>) {
        self.port = port
        self.path = path
        self.channel = channel
        self.queries = queries
    }

    /// Binds the listener.
    static func start(path: String = "/callback") async throws -> LoopbackRedirectReceiver {
        let (queries, continuation) = AsyncStream<[String: String]>.makeStream()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(CallbackHandler(path: path, continuation: continuation))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw CLIError.failure("the loopback listener has no port") }
        return LoopbackRedirectReceiver(port: port, path: path, channel: channel, queries: queries)
    }

    /// The first redirect's query parameters; nil when `timeout` passes first.
    func next(timeout: Duration) async throws -> [String: String]? {
        defer { channel.close(promise: nil) }
        return try await withThrowingTaskGroup(of: [String: String]?.self) { group in
            group.addTask { [queries] in
                for await query in queries { return query }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Answers one HTTP/1 request at a time on the loopback connection.
    private final class CallbackHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let path: String
        let continuation: AsyncStream<[String: String]>.Continuation

        init(path: String, continuation: AsyncStream<[String: String]>.Continuation) {
            self.path = path
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let components = URLComponents(string: head.uri)
            let matches = head.method == .GET && components?.path == path
            if matches {
                var query: [String: String] = [:]
                for item in components?.queryItems ?? [] where query[item.name] == nil {
                    query[item.name] = item.value ?? ""
                }
                continuation.yield(query)
                continuation.finish()
            }
            let text =
                matches
                ? "<!doctype html><title>gatewayctl</title><p>gatewayctl has the answer; you can close this tab.</p>"
                : "<!doctype html><title>Not found</title><p>Not found.</p>"
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Length", value: String(text.utf8.count))
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            context.write(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: .http1_1, status: matches ? .ok : .notFound, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
