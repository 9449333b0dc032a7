import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 child channel with the gateway's connection deadlines: a
/// ``ConnectionDeadlineHandler`` first in the pipeline (raw bytes), a
/// ``RequestPhaseHandler`` behind the codec.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let limits: ConnectionLimits
    let onTimeout: @Sendable (ConnectionDeadlines.Phase) -> Void

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, onTimeout: @escaping @Sendable (ConnectionDeadlines.Phase) -> Void) {
        // Hummingbird's head limits (80 KiB per field, 80 KiB in all, 1,000 fields) stand.
        base = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [RequestPhaseHandler()]))
        self.limits = limits
        self.onTimeout = onTimeout
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionDeadlineHandler(limits: limits, onTimeout: onTimeout), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the gateway's connection deadlines.
    static func guardedHTTP1(limits: ConnectionLimits, onTimeout: @escaping @Sendable (ConnectionDeadlines.Phase) -> Void) -> HTTPServerBuilder {
        .init { responder in GuardedHTTP1Channel(responder: responder, limits: limits, onTimeout: onTimeout) }
    }
}
