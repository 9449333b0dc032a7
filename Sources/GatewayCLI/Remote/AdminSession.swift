import Foundation

/// What `gatewayctl login` keeps between commands: the admin API's address and an access
/// token of the operator realm until it expires (never a secret), in a file only its owner
/// reads: `$GATEWAYCTL_HOME/session.json`, else `$XDG_CONFIG_HOME/gatewayctl/…`, else
/// `~/.config/gatewayctl/…`.
struct AdminSession: Codable, Equatable {
    var server: String
    var clientId: String
    var accessToken: String
    var expiresAt: Date
    /// A person's refresh token (single use, rotated), so later commands renew the access
    /// token without a browser; nil for a service account.
    var refreshToken: String?
    /// Who signed in (a person's session; a service account's name is its client id).
    var operatorName: String?

    /// The session file's path under `environment`.
    static func path(_ environment: [String: String]) -> URL {
        if let home = environment["GATEWAYCTL_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent("session.json")
        }
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return URL(fileURLWithPath: config).appendingPathComponent("gatewayctl/session.json")
    }

    /// The saved session (nil: none, or a file this version cannot read).
    static func load(_ environment: [String: String]) -> AdminSession? {
        guard let data = try? Data(contentsOf: path(environment)) else { return nil }
        return try? JSONCoding.decoder().decode(AdminSession.self, from: data)
    }

    /// Writes the session, readable by its owner only.
    func save(_ environment: [String: String]) throws {
        let url = Self.path(environment)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let data = try JSONCoding.encoder().encode(self)
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: url.path)
        else { throw CLIError.failure("cannot write \(url.path)") }
        defer { try? handle.close() }
        try handle.write(contentsOf: data)
    }

    /// Removes the saved session; false when there was none.
    static func remove(_ environment: [String: String]) -> Bool {
        (try? FileManager.default.removeItem(at: path(environment))) != nil
    }
}
