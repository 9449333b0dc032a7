import Logging
import NIOCore
import Synchronization

/// Redis Sentinel: which sentinels to ask, and for which master.
public struct RedisSentinelConfiguration: Sendable, Equatable {
    /// The sentinels, asked in this order (the one that answered last is asked first next time).
    public var sentinels: [RedisEndpoint]
    /// The master name the sentinels monitor (`sentinel monitor <name> …`).
    public var masterName: String
    /// ACL user name for the sentinels (only with `password`).
    public var username: String?
    /// Password for the sentinels, when they require AUTH (the data nodes' one is separate).
    public var password: String?

    /// Creates a Sentinel configuration.
    public init(sentinels: [RedisEndpoint], masterName: String, username: String? = nil, password: String? = nil) {
        self.sentinels = sentinels
        self.masterName = masterName
        self.username = username
        self.password = password
    }
}

/// Finds the server commands go to and opens connections to it.
///
/// Without Sentinel that is the configured host. With Sentinel it asks the sentinels in turn
/// (`SENTINEL get-master-addr-by-name`), remembers the answer, checks with `ROLE` on every new
/// connection that the server really is the master, and forgets the answer when a connect fails
/// or a failover is announced, so the next connect asks again.
final class RedisMasterLocator: Sendable {
    let configuration: RedisConfiguration
    let tls: RedisTLSContext?
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var master: RedisEndpoint?
        var sentinels: [RedisEndpoint]
    }

    init(configuration: RedisConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.tls = configuration.tls.map(RedisTLSContext.init)
        self.logger = logger
        self.state = Mutex(State(sentinels: configuration.sentinel?.sentinels ?? []))
    }

    /// The sentinels in the order they will be asked.
    var sentinels: [RedisEndpoint] { self.state.withLock { $0.sentinels } }

    /// The master last found, if any.
    var knownMaster: RedisEndpoint? { self.state.withLock { $0.master } }

    /// Opens a connection to the master (AUTH/SELECT done; with Sentinel, ROLE checked).
    /// - Parameter probe: without Sentinel, also require an answer to `PING` (with Sentinel the
    ///   `ROLE` check always asks one), so a server that accepts connections but does not
    ///   answer (paused) fails the connect.
    func connectMaster(on eventLoop: any EventLoop, probe: Bool = false) async throws(RedisError) -> RedisConnection {
        guard let sentinel = self.configuration.sentinel else {
            let connection = try await self.connect(self.configuration, on: eventLoop)
            guard probe else { return connection }
            return try await Self.checked(connection, by: ["PING"], or: "the probe got no answer") { _ in }
        }
        let master = try await self.master()
        do {
            let connection = try await self.connect(self.configuration.node(master), on: eventLoop)
            return try await Self.checked(connection, by: ["ROLE"], or: "not the master") { role in
                guard role.array?.first?.string == "master" else {
                    throw RedisError.connectionFailed(
                        "\(master) is not the master of '\(sentinel.masterName)' (its role is \(role.array?.first?.string ?? "unknown"))"
                    )
                }
            }
        } catch {
            self.forget(master)
            throw RedisError.wrapping(error)
        }
    }

    /// `connection` once its answer to `command` passes `accept`; else it is closed (with
    /// `reason`) and the failure thrown.
    private static func checked(
        _ connection: RedisConnection, by command: [String], or reason: String,
        _ accept: (RESPValue) throws -> Void
    ) async throws(RedisError) -> RedisConnection {
        do {
            try accept(try await connection.command(command))
            return connection
        } catch {
            connection.close(error: .connectionFailed(reason))
            throw RedisError.wrapping(error)
        }
    }

    /// The master: the one last found, else asked of the sentinels.
    func master() async throws(RedisError) -> RedisEndpoint {
        if let known = self.knownMaster { return known }
        return try await self.discover()
    }

    /// Asks the sentinels in order; the first one that knows the master wins and is asked first
    /// next time. Without Sentinel: the configured host.
    func discover() async throws(RedisError) -> RedisEndpoint {
        guard let sentinel = self.configuration.sentinel else {
            return RedisEndpoint(host: self.configuration.host, port: self.configuration.port)
        }
        var failures: [String] = []
        for endpoint in self.sentinels {
            do {
                let master = try await self.askSentinel(endpoint, for: sentinel.masterName)
                self.state.withLock { state in
                    state.master = master
                    state.sentinels.removeAll { $0 == endpoint }
                    state.sentinels.insert(endpoint, at: 0)
                }
                return master
            } catch {
                failures.append("\(endpoint): \(error)")
            }
        }
        throw .connectionFailed(
            "no sentinel named the master '\(sentinel.masterName)': \(failures.joined(separator: "; "))")
    }

    /// Records a master announced by a failover; `true` when it differs from the one known.
    func switched(to master: RedisEndpoint) -> Bool {
        self.state.withLock { state in
            defer { state.master = master }
            return state.master != master
        }
    }

    /// Forgets the master (if it is still `master`), so the next connect asks the sentinels.
    func forget(_ master: RedisEndpoint? = nil) {
        self.state.withLock { state in
            if master == nil || state.master == master { state.master = nil }
        }
    }

    /// The configuration for talking to one sentinel: its credentials, database 0.
    func sentinelNode(_ endpoint: RedisEndpoint) -> RedisConfiguration {
        var node = self.configuration.node(endpoint)
        node.username = self.configuration.sentinel?.username
        node.password = self.configuration.sentinel?.password
        node.database = 0
        return node
    }

    private func askSentinel(
        _ endpoint: RedisEndpoint, for masterName: String
    ) async throws(RedisError) -> RedisEndpoint {
        let connection = try await self.connect(self.sentinelNode(endpoint), on: self.eventLoopGroup.next())
        defer { connection.close(error: .shutdown) }
        let reply = try await connection.command(["SENTINEL", "get-master-addr-by-name", masterName])
        guard let parts = reply.array, parts.count == 2, let host = parts[0].string,
              let port = parts[1].string.flatMap({ Int($0) })
        else {
            throw .unexpectedReply("the sentinel does not monitor '\(masterName)'")
        }
        return RedisEndpoint(host: host, port: port)
    }

    private func connect(
        _ node: RedisConfiguration, on eventLoop: any EventLoop
    ) async throws(RedisError) -> RedisConnection {
        do {
            return try await RedisConnection.connect(
                configuration: node, tls: self.tls, eventLoop: eventLoop, logger: self.logger
            ).get()
        } catch {
            throw RedisError.wrapping(error)
        }
    }
}
