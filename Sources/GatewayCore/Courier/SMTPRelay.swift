import Foundation

/// A tenant's SMTP relay (issue 63 §4): where its e-mail goes, secured how, as whom.
public struct SMTPRelay: Sendable, Equatable, Codable {
    /// How the connection is secured.
    public enum Security: String, Sendable, Codable, CaseIterable {
        /// STARTTLS, required: a relay that does not offer it gets nothing, not even AUTH.
        case required
        /// Plain SMTP: only a relay on this machine's loopback (tests, a local MTA).
        case off
    }

    /// `smtp://host[:port]` (STARTTLS per ``security``) or `smtps://host[:port]` (TLS from the
    /// first byte).
    public var url: String
    /// The envelope sender and `From:` address.
    public var from: String
    public var startTLS: Security
    public var username: String?
    /// Sealed at rest, write-only on every API.
    public var password: SecretValue?

    public init(
        url: String, from: String, startTLS: Security = .required, username: String? = nil,
        password: SecretValue? = nil
    ) {
        self.url = url
        self.from = from
        self.startTLS = startTLS
        self.username = username
        self.password = password
    }

    /// Whether the connection is TLS from the first byte.
    public var implicitTLS: Bool { url.lowercased().hasPrefix("smtps://") }

    /// Why these settings cannot be used, naming the member; nil when they can.
    public var problem: String? { problems.first?.description }

    /// Everything wrong with these settings, each naming its tenant field (`courier.smtp.*`).
    public var problems: [TenantValidationError] {
        var found: [TenantValidationError] = []
        if let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["smtp", "smtps"].contains(scheme), let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil, components.user == nil,
            components.fragment == nil, url.utf8.count <= 2048
        {
            if startTLS == .off, scheme == "smtp", !Self.loopbackHosts.contains(host.lowercased()) {
                found.append(.init(
                    field: .courierSMTPStartTLS,
                    problem: "may be off only for a relay on loopback (127.0.0.1, ::1, localhost)"))
            }
        } else {
            found.append(.init(field: .courierSMTPURL, problem: "must be smtp://host[:port] or smtps://host[:port]"))
        }
        if MailAddress.problem(from) != nil { found.append(.init(field: .courierSMTPFrom, problem: "must be one e-mail address")) }
        if let username, username.isEmpty || username.utf8.count > 256 || ControlCharacters.held(in: username) {
            found.append(.init(
                field: .courierSMTPUsername, problem: "must be 1-256 characters without control characters"))
        }
        if let password, password.plaintext.isEmpty || password.plaintext.utf8.count > 1024 {
            found.append(.init(field: .courierSMTPPassword, problem: "must be 1-1024 characters"))
        }
        if password != nil, username == nil {
            found.append(.init(field: .courierSMTPUsername, problem: "must be set with courier.smtp.password"))
        }
        return found
    }

    static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "[::1]", "localhost"]
}

/// The e-mail addresses the courier sends from and to: one `local@domain`, no display name,
/// nothing a header or an SMTP command could be smuggled through.
public enum MailAddress {
    /// Why `address` is refused, or nil.
    public static func problem(_ address: String) -> String? {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard address.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !address.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || "<>(),;:\\\"[]".unicodeScalars.contains($0) })
        else { return "not one e-mail address" }
        return nil
    }
}
