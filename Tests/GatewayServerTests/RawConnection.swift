import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A bare TCP connection to the gateway for what HTTP clients won't do: half-sent heads,
/// trickled bytes, idle sockets, bodies longer than declared. Never blocks a thread.
final class RawConnection: Sendable {
    private let channel: any Channel
    private let received: NIOLockedValueBox<[UInt8]>

    private init(channel: any Channel, received: NIOLockedValueBox<[UInt8]>) {
        self.channel = channel
        self.received = received
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<[UInt8]>
        init(_ received: NIOLockedValueBox<[UInt8]>) { self.received = received }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLockedValue { $0 += Array(buffer.readableBytesView) }
        }
    }

    /// Connects to the gateway on 127.0.0.1 from the local address `source` (any of 127/8).
    static func connect(port: Int, from source: String = "127.0.0.1") async throws -> RawConnection {
        let received = NIOLockedValueBox<[UInt8]>([])
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: false)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(received))
                }
            }
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, received: received)
    }

    /// Sends `text` (UTF-8) as is.
    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Everything received so far, as text.
    var text: String { String(decoding: received.withLockedValue { $0 }, as: UTF8.self) }

    var isOpen: Bool { channel.isActive }

    /// Whether the server closed the connection within `timeout`.
    func closed(within timeout: Duration) async -> Bool {
        await eventually(within: timeout) { !self.channel.isActive }
    }

    /// Waits until the received text contains `marker`, up to `timeout`.
    func received(_ marker: String, within timeout: Duration) async -> Bool {
        await eventually(within: timeout) { self.text.contains(marker) }
    }

    func close() async {
        try? await channel.close()
    }
}
