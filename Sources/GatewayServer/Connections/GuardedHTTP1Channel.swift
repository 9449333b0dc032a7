import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 child channel behind the gateway's connection guard. At accept,
/// ``ConnectionAdmission`` admits the connection or closes it at once (per-address cap),
/// shedding others when the server is near its cap. The pipeline, socket side first:
/// ``ConnectionDeadlineHandler`` (raw bytes), ``ProxyProtocolHandler`` (trusted peers, when
/// on), ``LingeringCloseHandler``, Hummingbird's codec, then ``RequestPhaseHandler`` and
/// ``EarlyAnswerHandler`` behind it, then ``StoredAnswerHandler`` (cache hits of the hot reads
/// answered on the event loop, when the fast path is on). The connection's requests are
/// served with its ``ClientConnection`` bound as a task-local value.
struct GuardedHTTP1Channel: ServerChildChannel {
    /// An admitted connection and its HTTP channel.
    struct Value: ServerChildChannelValue {
        let http: HTTP1Channel.Value
        let connection: ClientConnection
        var channel: any Channel { connection.channel }
    }

    let base: HTTP1Channel
    let guarding: ConnectionGuard
    /// nil: every request goes through Hummingbird.
    let fastPath: StoredAnswerFastPath?

    init(responder: @escaping HTTPChannelHandler.Responder, guarding: ConnectionGuard, fastPath: StoredAnswerFastPath?) {
        base = HTTP1Channel(responder: responder)
        self.guarding = guarding
        self.fastPath = fastPath
    }

    /// The HTTP channel of one connection: its handlers know the connection.
    private func http(for connection: ClientConnection) -> HTTP1Channel {
        let fastPath = fastPath
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            let edge: [any RemovableChannelHandler] = [RequestPhaseHandler(), EarlyAnswerHandler()]
            guard let fastPath else { return edge }
            return edge + [StoredAnswerHandler(fastPath: fastPath, connection: connection)]
        }
        // Hummingbird's head limits (80 KiB per field, 80 KiB in all, 1,000 fields) stand.
        return HTTP1Channel(responder: base.responder, configuration: .init(additionalChannelHandlers: handlers()))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connection = guarding.connection(for: channel)
        if let refusal = guarding.admission.admit(connection) {
            // Closed before it is registered: a failed setup drops the channel before
            // Hummingbird sees it, so a refused connection costs no pipeline and no task
            // (a reconnect flood is refused as fast as the kernel hands it over).
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ConnectionRefused(reason: refusal))
        }
        let admission = guarding.admission
        channel.closeFuture.whenComplete { _ in admission.release(connection) }
        do {
            try channel.pipeline.syncOperations.addHandlers(guarding.handlers(for: connection))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http(for: connection).setup(channel: channel, logger: logger).map { Value(http: $0, connection: connection) }
    }

    func handle(value: Value, logger: Logger) async {
        await ClientConnection.$current.withValue(value.connection) {
            await base.handle(value: value.http, logger: logger)
        }
    }
}

/// Why an accepted connection was closed at once (the failed setup's error; nothing logs it).
struct ConnectionRefused: Error {
    let reason: ConnectionAdmission.Refusal
}

extension HTTPServerBuilder {
    /// HTTP/1.1 behind the gateway's connection guard, with the stored answers' fast path when given.
    static func guardedHTTP1(_ guarding: ConnectionGuard, fastPath: StoredAnswerFastPath?) -> HTTPServerBuilder {
        .init { responder in GuardedHTTP1Channel(responder: responder, guarding: guarding, fastPath: fastPath) }
    }
}
