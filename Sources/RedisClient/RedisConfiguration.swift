/// Where and how `RedisClient` connects.
public struct RedisConfiguration: Sendable, Equatable {
    /// Host name or IP address of the server.
    public var host: String
    /// TCP port of the server.
    public var port: Int
    /// Password sent with `AUTH` on every new connection, if any.
    public var password: String?
    /// ACL user name sent with `AUTH user password` (only used together with `password`).
    public var username: String?
    /// Database index selected with `SELECT` on every new connection (0 sends nothing).
    public var database: Int
    /// Maximum number of pooled connections, created lazily (at least 1).
    public var poolSize: Int
    /// How long a command may wait for its reply before failing with `RedisError.timeout`.
    public var commandTimeout: Duration
    /// How long establishing a TCP connection may take.
    public var connectTimeout: Duration
    /// Delay before the first reconnect attempt after a failed connect.
    public var reconnectInitialBackoff: Duration
    /// Upper bound of the exponentially growing reconnect delay.
    public var reconnectMaxBackoff: Duration

    /// Creates a configuration; every parameter has a usable default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 6379,
        password: String? = nil,
        username: String? = nil,
        database: Int = 0,
        poolSize: Int = 4,
        commandTimeout: Duration = .seconds(2),
        connectTimeout: Duration = .seconds(2),
        reconnectInitialBackoff: Duration = .milliseconds(50),
        reconnectMaxBackoff: Duration = .seconds(2)
    ) {
        self.host = host
        self.port = port
        self.password = password
        self.username = username
        self.database = database
        self.poolSize = poolSize
        self.commandTimeout = commandTimeout
        self.connectTimeout = connectTimeout
        self.reconnectInitialBackoff = reconnectInitialBackoff
        self.reconnectMaxBackoff = reconnectMaxBackoff
    }

    /// Parses `redis://[[username]:password@]host[:port][/db]`.
    ///
    /// User name and password may be percent-encoded. A user-info part without `:` is taken as the
    /// password. IPv6 hosts go in brackets (`redis://[::1]:6379`). Other settings keep their defaults.
    /// - Throws: `RedisError.invalidURL` for another scheme, a missing host, a bad port or database,
    ///   or a query/fragment part.
    public init(url: String) throws(RedisError) {
        self.init()
        var rest = Substring(url)
        guard let schemeEnd = rest.firstRange(of: "://") else {
            throw .invalidURL("missing scheme in \"\(url)\"")
        }
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" else {
            throw .invalidURL("unsupported scheme \"\(scheme)\" (only redis:// is supported)")
        }
        rest = rest[schemeEnd.upperBound...]
        if rest.contains("?") || rest.contains("#") {
            throw .invalidURL("query and fragment are not supported in \"\(url)\"")
        }

        let authority: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            let path = rest[rest.index(after: slash)...]
            if !path.isEmpty {
                guard path.allSatisfy(\.isASCIIDigit), let database = Int(path) else {
                    throw .invalidURL("database must be a non-negative integer, got \"\(path)\"")
                }
                self.database = database
            }
        } else {
            authority = rest
        }

        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                let user = try Self.percentDecode(userInfo[..<colon])
                self.username = user.isEmpty ? nil : user
                self.password = try Self.percentDecode(userInfo[userInfo.index(after: colon)...])
            } else if !userInfo.isEmpty {
                self.password = try Self.percentDecode(userInfo)
            }
            if self.password?.isEmpty == true {
                self.password = nil
            }
        }

        var portText: Substring?
        if hostPort.first == "[" {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw .invalidURL("unterminated IPv6 address in \"\(url)\"")
            }
            self.host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidURL("unexpected text after IPv6 address in \"\(url)\"") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            self.host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            self.host = String(hostPort)
        }
        guard !self.host.isEmpty else {
            throw .invalidURL("missing host in \"\(url)\"")
        }
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText), (1...65535).contains(port) else {
                throw .invalidURL("port must be an integer in 1...65535, got \"\(portText)\"")
            }
            self.port = port
        }
    }

    private static func percentDecode(_ text: Substring) throws(RedisError) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2,
                  let high = hexValue(utf8.popFirst()!),
                  let low = hexValue(utf8.popFirst()!)
            else {
                throw .invalidURL("bad percent-encoding in user info")
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
