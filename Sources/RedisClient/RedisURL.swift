extension RedisConfiguration {
    /// Parses a Redis URL. Four schemes:
    ///
    /// - `redis://[[username]:password@]host[:port][/db]`: one server (default port 6379);
    /// - `rediss://…`: the same over TLS;
    /// - `redis-sentinel://[[username]:password@]host[:port][,host[:port]…]/mastername[/db]`:
    ///   the master that these sentinels (default port 26379) watch, followed across failovers;
    ///   the credentials are the data nodes' ones;
    /// - `rediss-sentinel://…`: the same, with TLS to sentinels and data nodes.
    ///
    /// Query parameters: `tls_ca_file` (PEM trust roots instead of the system's), `tls_server_name`
    /// (the name the certificate must carry), `tls_cert_file` + `tls_key_file` (a client
    /// certificate) with the TLS schemes; `sentinel_username` and `sentinel_password` (when the
    /// sentinels require AUTH) with the Sentinel schemes. User name, password and parameter values
    /// may be percent-encoded. A user-info part without `:` is the password. IPv6 hosts go in
    /// brackets (`redis://[::1]:6379`). Other settings keep their defaults.
    /// - Throws: `RedisError.invalidURL` for another scheme, a missing host or master name, a bad
    ///   port or database, an unknown or misplaced parameter, or a fragment.
    public init(url: String) throws(RedisError) {
        self.init()
        var rest = Substring(url)
        guard let schemeEnd = rest.firstRange(of: "://") else {
            throw .invalidURL("missing scheme in \"\(url)\"")
        }
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        let usesTLS: Bool
        let usesSentinel: Bool
        switch scheme {
        case "redis": (usesTLS, usesSentinel) = (false, false)
        case "rediss": (usesTLS, usesSentinel) = (true, false)
        case "redis-sentinel": (usesTLS, usesSentinel) = (false, true)
        case "rediss-sentinel": (usesTLS, usesSentinel) = (true, true)
        default:
            throw .invalidURL(
                "unsupported scheme \"\(scheme)\" (use redis://, rediss://, redis-sentinel:// or rediss-sentinel://)")
        }
        rest = rest[schemeEnd.upperBound...]
        if rest.contains("#") {
            throw .invalidURL("a fragment is not supported in \"\(url)\"")
        }
        var parameters: [String: String] = [:]
        if let question = rest.firstIndex(of: "?") {
            parameters = try Self.parameters(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }

        let authority: Substring
        var path: [Substring] = []
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
            if path.last?.isEmpty == true { path.removeLast() }
        } else {
            authority = rest
        }

        var hosts = authority
        if let at = authority.lastIndex(of: "@") {
            (self.username, self.password) = try Self.credentials(authority[..<at])
            hosts = authority[authority.index(after: at)...]
        }

        if usesSentinel {
            let sentinels = try hosts.split(separator: ",", omittingEmptySubsequences: false).map {
                hostPort throws(RedisError) in
                try Self.endpoint(hostPort, defaultPort: 26379, url: url)
            }
            guard let masterName = path.first, !masterName.isEmpty else {
                throw .invalidURL("missing master name (redis-sentinel://host:port/mastername) in \"\(url)\"")
            }
            self.sentinel = RedisSentinelConfiguration(
                sentinels: sentinels,
                masterName: try Self.percentDecode(masterName),
                username: parameters.removeValue(forKey: "sentinel_username"),
                password: parameters.removeValue(forKey: "sentinel_password")
            )
            path.removeFirst()
        } else {
            let endpoint = try Self.endpoint(hosts, defaultPort: 6379, url: url)
            (self.host, self.port) = (endpoint.host, endpoint.port)
        }
        if let database = path.first {
            guard path.count == 1, !database.isEmpty, database.allSatisfy(\.isASCIIDigit), let number = Int(database)
            else {
                throw .invalidURL("database must be a non-negative integer, got \"\(path.joined(separator: "/"))\"")
            }
            self.database = number
        }

        if usesTLS {
            self.tls = RedisTLSConfiguration(
                caFile: parameters.removeValue(forKey: "tls_ca_file"),
                serverName: parameters.removeValue(forKey: "tls_server_name"),
                certificateFile: parameters.removeValue(forKey: "tls_cert_file"),
                privateKeyFile: parameters.removeValue(forKey: "tls_key_file")
            )
            if (self.tls?.certificateFile == nil) != (self.tls?.privateKeyFile == nil) {
                throw .invalidURL("tls_cert_file and tls_key_file go together")
            }
        }
        if let unknown = parameters.keys.sorted().first {
            let known = (usesTLS ? ["tls_ca_file", "tls_server_name", "tls_cert_file", "tls_key_file"] : [])
                + (usesSentinel ? ["sentinel_username", "sentinel_password"] : [])
            throw .invalidURL(
                "unknown parameter \"\(unknown)\" for \(scheme):// (known: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
            )
        }
    }

    /// The URL with its passwords (user info and `sentinel_password`) replaced, for logs.
    public static func redacted(url: String) -> String {
        var text = url
        if let schemeEnd = text.firstRange(of: "://") {
            let authorityEnd =
                text[schemeEnd.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
            if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(schemeEnd.upperBound..<at, with: "•••")
            }
        }
        guard let secret = text.firstRange(of: "sentinel_password=") else { return text }
        let end = text[secret.upperBound...].firstIndex(of: "&") ?? text.endIndex
        text.replaceSubrange(secret.upperBound..<end, with: "•••")
        return text
    }

    private static func credentials(_ userInfo: Substring) throws(RedisError) -> (String?, String?) {
        var username: String?
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            let user = try percentDecode(userInfo[..<colon])
            username = user.isEmpty ? nil : user
            password = try percentDecode(userInfo[userInfo.index(after: colon)...])
        } else if !userInfo.isEmpty {
            password = try percentDecode(userInfo)
        }
        return (username, password?.isEmpty == true ? nil : password)
    }

    private static func endpoint(
        _ hostPort: Substring, defaultPort: Int, url: String
    ) throws(RedisError) -> RedisEndpoint {
        var host: String
        var portText: Substring?
        if hostPort.first == "[" {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw .invalidURL("unterminated IPv6 address in \"\(url)\"")
            }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidURL("unexpected text after IPv6 address in \"\(url)\"") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        guard !host.isEmpty else {
            throw .invalidURL("missing host in \"\(url)\"")
        }
        guard let portText else { return RedisEndpoint(host: host, port: defaultPort) }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText),
            (1...65535).contains(port)
        else {
            throw .invalidURL("port must be an integer in 1...65535, got \"\(portText)\"")
        }
        return RedisEndpoint(host: host, port: port)
    }

    private static func parameters(_ query: Substring) throws(RedisError) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw .invalidURL("query parameters must be name=value, got \"\(pair)\"")
            }
            let name = String(pair[..<equals])
            guard parameters[name] == nil else { throw .invalidURL("parameter \"\(name)\" given twice") }
            parameters[name] = try percentDecode(pair[pair.index(after: equals)...])
        }
        return parameters
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
                throw .invalidURL("bad percent-encoding")
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
