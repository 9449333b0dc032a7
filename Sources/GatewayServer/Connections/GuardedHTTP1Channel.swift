import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 child channel behind the gateway's connection guard. At accept,
/// ``ConnectionAdmission`` admits the connection or closes it at once (per-address cap),
/// shedding others when the server is near its cap. The pipeline, socket side first:
/// ``ConnectionDeadlineHandler`` (raw bytes), ``ProxyProtocolHandler`` (trusted peers, when
/// on), ``LingeringCloseHandler``, Hummingbird's codec, then ``RequestPhaseHandler`` and
/// ``EarlyAnswerHandler`` behind it. The connection's requests are served with its
/// ``ClientConnection`` bound as a task-local value.
struct GuardedHTTP1Channel: ServerChildChannel {
    /// An accepted connection: its HTTP channel, or nil when it was refused.
    struct Value: ServerChildChannelValue {
        let http: HTTP1Channel.Value?
        let connection: ClientConnection
        var channel: any Channel { connection.channel }
    }

    let base: HTTP1Channel
    let guarding: ConnectionGuard

    init(responder: @escaping HTTPChannelHandler.Responder, guarding: ConnectionGuard) {
        // Hummingbird's head limits (80 KiB per field, 80 KiB in all, 1,000 fields) stand.
        base = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [RequestPhaseHandler(), EarlyAnswerHandler()]))
        self.guarding = guarding
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connection = guarding.connection(for: channel)
        guard guarding.admission.admit(connection) == nil else {
            return channel.eventLoop.makeSucceededFuture(Value(http: nil, connection: connection))
        }
        let admission = guarding.admission
        channel.closeFuture.whenComplete { _ in admission.release(connection) }
        do {
            try channel.pipeline.syncOperations.addHandlers(guarding.handlers(for: connection))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).map { Value(http: $0, connection: connection) }
    }

    func handle(value: Value, logger: Logger) async {
        guard let http = value.http else {
            // Refused at accept: closed now that it is registered.
            try? await value.channel.close()
            return
        }
        await ClientConnection.$current.withValue(value.connection) {
            await base.handle(value: http, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 behind the gateway's connection guard.
    static func guardedHTTP1(_ guarding: ConnectionGuard) -> HTTPServerBuilder {
        .init { responder in GuardedHTTP1Channel(responder: responder, guarding: guarding) }
    }
}
