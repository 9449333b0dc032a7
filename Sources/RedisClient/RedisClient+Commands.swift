/// Typed helpers for common commands. Error replies throw `RedisError.server`; replies of an
/// unexpected type throw `RedisError.unexpectedReply`.
extension RedisClient {
    // MARK: Connection

    /// `PING`; succeeds when the server answers `PONG`.
    public func ping() async throws {
        let reply = try await self.send([Command.ping])
        guard case .simpleString("PONG") = reply else {
            throw RedisError.unexpectedReply("PING answered \(reply)")
        }
    }

    // MARK: Strings

    /// `GET key`; `nil` when the key does not exist.
    public func get(_ key: [UInt8]) async throws -> [UInt8]? {
        try Self.optionalBytes(try await self.send([Command.get, key]), "GET")
    }

    /// `GET key`; `nil` when the key does not exist.
    public func get(_ key: String) async throws -> [UInt8]? {
        try await self.get(Array(key.utf8))
    }

    /// `GET key` decoded as UTF-8; `nil` when the key does not exist.
    public func getString(_ key: String) async throws -> String? {
        try await self.get(key).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `SET key value [EX|PX n] [NX|XX]`.
    /// - Returns: `false` when `condition` prevented the write, `true` otherwise.
    public func set(
        _ key: [UInt8],
        _ value: [UInt8],
        expiration: RedisExpiration? = nil,
        condition: RedisSetCondition = .always
    ) async throws -> Bool {
        switch try await self.send(Self.setCommand(key, value, expiration: expiration, condition: condition)) {
        case .simpleString("OK"): return true
        case .null: return false
        case let reply: throw RedisError.unexpectedReply("SET answered \(reply)")
        }
    }

    /// `SET key value [EX|PX n] [NX|XX]`; `false` when `condition` prevented the write.
    public func set(
        _ key: String,
        _ value: [UInt8],
        expiration: RedisExpiration? = nil,
        condition: RedisSetCondition = .always
    ) async throws -> Bool {
        try await self.set(Array(key.utf8), value, expiration: expiration, condition: condition)
    }

    /// `SET key value [EX|PX n] [NX|XX]` with a UTF-8 value; `false` when `condition` prevented the write.
    public func set(
        _ key: String,
        _ value: String,
        expiration: RedisExpiration? = nil,
        condition: RedisSetCondition = .always
    ) async throws -> Bool {
        try await self.set(Array(key.utf8), Array(value.utf8), expiration: expiration, condition: condition)
    }

    /// `SET key value [EX|PX n] [NX|XX] GET` (Redis 7): writes as ``set(_:_:expiration:condition:)``
    /// does and answers what the key held before, in one step.
    /// - Returns: the old value; `nil` when the key had none (with `.ifExists`, nothing was written).
    public func setReturningOld(
        _ key: String,
        _ value: [UInt8],
        expiration: RedisExpiration? = nil,
        condition: RedisSetCondition = .always
    ) async throws -> [UInt8]? {
        let command = Self.setCommand(Array(key.utf8), value, expiration: expiration, condition: condition)
        return try Self.optionalBytes(try await self.send(command + [Command.get]), "SET ... GET")
    }

    private static func setCommand(
        _ key: [UInt8], _ value: [UInt8], expiration: RedisExpiration?, condition: RedisSetCondition
    ) -> [[UInt8]] {
        var arguments: [[UInt8]] = [Command.set, key, value]
        switch expiration {
        case .seconds(let seconds)?: arguments += [Command.ex, Self.decimal(seconds)]
        case .milliseconds(let milliseconds)?: arguments += [Command.px, Self.decimal(milliseconds)]
        case nil: break
        }
        switch condition {
        case .always: break
        case .ifNotExists: arguments.append(Command.nx)
        case .ifExists: arguments.append(Command.xx)
        }
        return arguments
    }

    /// `GETDEL key`: returns the value and deletes the key; `nil` when it did not exist.
    public func getdel(_ key: String) async throws -> [UInt8]? {
        try await self.getdel(Array(key.utf8))
    }

    /// `GETDEL key`: returns the value and deletes the key; `nil` when it did not exist.
    public func getdel(_ key: [UInt8]) async throws -> [UInt8]? {
        try Self.optionalBytes(try await self.send([Command.getdel, key]), "GETDEL")
    }

    /// `MGET key...`; one entry per key, `nil` for missing keys.
    public func mget(_ keys: [String]) async throws -> [[UInt8]?] {
        try await self.mget(keys.map { Array($0.utf8) })
    }

    /// `MGET key...`; one entry per key, `nil` for missing keys.
    public func mget(_ keys: [[UInt8]]) async throws -> [[UInt8]?] {
        guard !keys.isEmpty else { return [] }
        let reply = try await self.send([Command.mget] + keys)
        guard case .array(let values) = reply, values.count == keys.count else {
            throw RedisError.unexpectedReply("MGET answered \(reply)")
        }
        return try values.map { try Self.optionalBytes($0, "MGET") }
    }

    /// `INCR key`; returns the new value.
    public func incr(_ key: String) async throws -> Int64 {
        try Self.integer(try await self.send([Command.incr, Array(key.utf8)]), "INCR")
    }

    /// `INCRBY key by`; returns the new value.
    public func incrby(_ key: String, _ by: Int64) async throws -> Int64 {
        try Self.integer(try await self.send([Command.incrby, Array(key.utf8), Self.decimal(by)]), "INCRBY")
    }

    // MARK: Keys

    /// `DEL key...`; returns how many keys were removed.
    public func del(_ keys: [String]) async throws -> Int {
        try await self.del(keys.map { Array($0.utf8) })
    }

    /// `DEL key...`; returns how many keys were removed.
    public func del(_ keys: [[UInt8]]) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return Int(try Self.integer(try await self.send([Command.del] + keys), "DEL"))
    }

    /// `EXISTS key...`; returns how many of the keys exist (repeated keys count repeatedly).
    public func exists(_ keys: [String]) async throws -> Int {
        try await self.exists(keys.map { Array($0.utf8) })
    }

    /// `EXISTS key...`; returns how many of the keys exist (repeated keys count repeatedly).
    public func exists(_ keys: [[UInt8]]) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return Int(try Self.integer(try await self.send([Command.exists] + keys), "EXISTS"))
    }

    /// `EXPIRE key seconds`; `false` when the key does not exist.
    public func expire(_ key: String, seconds: Int) async throws -> Bool {
        try Self.integer(try await self.send([Command.expire, Array(key.utf8), Self.decimal(seconds)]), "EXPIRE") == 1
    }

    /// `PEXPIRE key milliseconds`; `false` when the key does not exist.
    public func pexpire(_ key: String, milliseconds: Int) async throws -> Bool {
        try Self.integer(
            try await self.send([Command.pexpire, Array(key.utf8), Self.decimal(milliseconds)]),
            "PEXPIRE"
        ) == 1
    }

    // MARK: Pub/Sub

    /// `PUBLISH channel message`; returns the number of subscribers that received it.
    public func publish(_ channel: String, _ message: [UInt8]) async throws -> Int {
        Int(try Self.integer(try await self.send([Command.publish, Array(channel.utf8), message]), "PUBLISH"))
    }

    /// `PUBLISH channel message` with a UTF-8 message; returns the number of receivers.
    public func publish(_ channel: String, _ message: String) async throws -> Int {
        try await self.publish(channel, Array(message.utf8))
    }

    // MARK: Scripting

    /// `SCRIPT LOAD script`; returns the script's SHA-1 (40 lower-case hex digits).
    public func scriptLoad(_ script: String) async throws -> String {
        let reply = try await self.send([Command.script, Command.load, Array(script.utf8)])
        guard let sha = reply.string, case .bulkString = reply else {
            throw RedisError.unexpectedReply("SCRIPT LOAD answered \(reply)")
        }
        return sha
    }

    /// `EVALSHA sha numkeys key... arg...`.
    /// - Throws: `RedisError.server("NOSCRIPT ...")` when the server does not know the script.
    public func evalsha(_ sha: String, keys: [String], arguments: [[UInt8]]) async throws -> RESPValue {
        var command: [[UInt8]] = [Command.evalsha, Array(sha.utf8), Self.decimal(keys.count)]
        command.reserveCapacity(3 + keys.count + arguments.count)
        for key in keys { command.append(Array(key.utf8)) }
        command += arguments
        return try await self.send(command)
    }

    /// Runs a Lua script by its SHA-1 with `EVALSHA`; on `NOSCRIPT` loads it with `SCRIPT LOAD`
    /// and retries once. Scripts are sent in full only when the server does not have them yet.
    public func eval(script: String, keys: [String], arguments: [[UInt8]]) async throws -> RESPValue {
        let sha = SHA1.hexDigest(Array(script.utf8))
        do {
            return try await self.evalsha(sha, keys: keys, arguments: arguments)
        } catch RedisError.server(let message) where message.hasPrefix("NOSCRIPT") {
            let loaded = try await self.scriptLoad(script)
            return try await self.evalsha(loaded, keys: keys, arguments: arguments)
        }
    }

    // MARK: Private

    private enum Command {
        static let ping = Array("PING".utf8)
        static let get = Array("GET".utf8)
        static let set = Array("SET".utf8)
        static let ex = Array("EX".utf8)
        static let px = Array("PX".utf8)
        static let nx = Array("NX".utf8)
        static let xx = Array("XX".utf8)
        static let getdel = Array("GETDEL".utf8)
        static let mget = Array("MGET".utf8)
        static let incr = Array("INCR".utf8)
        static let incrby = Array("INCRBY".utf8)
        static let del = Array("DEL".utf8)
        static let exists = Array("EXISTS".utf8)
        static let expire = Array("EXPIRE".utf8)
        static let pexpire = Array("PEXPIRE".utf8)
        static let publish = Array("PUBLISH".utf8)
        static let script = Array("SCRIPT".utf8)
        static let load = Array("LOAD".utf8)
        static let evalsha = Array("EVALSHA".utf8)
    }

    private static func decimal(_ value: some BinaryInteger) -> [UInt8] {
        Array(String(value).utf8)
    }

    private static func optionalBytes(_ reply: RESPValue, _ command: String) throws(RedisError) -> [UInt8]? {
        switch reply {
        case .bulkString(let bytes): return bytes
        case .null: return nil
        default: throw .unexpectedReply("\(command) answered \(reply)")
        }
    }

    private static func integer(_ reply: RESPValue, _ command: String) throws(RedisError) -> Int64 {
        guard case .integer(let value) = reply else {
            throw .unexpectedReply("\(command) answered \(reply)")
        }
        return value
    }
}
