import Foundation
import Testing
@testable import GatewayCore

/// How upstream identities find their local users, on every engine (the email lookup is a
/// store query since migration `v12-user-email-index`).
@Suite("Identity linker")
struct IdentityLinkerTests {
    let issuer = "https://login.corp.example"

    func claims(_ subject: String, email: String?, verified: Bool) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(subject), "email_verified": .bool(verified)]
        if let email { claims["email"] = .string(email) }
        return claims
    }

    @Test(arguments: StoreBackend.available)
    func aVerifiedEmailLinksTheOneUserWithIt(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let linker = IdentityLinker(users: auth, links: auth)
        let erin = LocalUser(tenantID: "acme", username: "erin", email: "Erin@Example.com", passwordHash: "ph")
        try await auth.addUsers([
            erin, LocalUser(tenantID: "acme", username: "other", email: "other@example.com", passwordHash: "ph"),
            LocalUser(tenantID: "beta", username: "erin", email: "erin@example.com", passwordHash: "ph"),
        ])
        #expect(
            try await auth.users(tenantID: "acme", email: "ERIN@example.COM", limit: 2).map(\.subject) == [erin.subject]
        )

        // Verified, any case: erin, and the link sticks.
        let linked = try await linker.localUser(
            tenantID: "acme", issuer: issuer, claims: claims("u3", email: "ERIN@example.com", verified: true),
            linkByVerifiedEmail: true)
        #expect(linked.subject == erin.subject)
        #expect(
            try await auth.identityLink(tenantID: "acme", issuer: issuer, externalSubject: "u3")?.subject
                == erin.subject)
        // An unverified email, or linking by email off: a new passwordless user (the second
        // one keeps the verified email: from then on two local users have it).
        let unverified = try await linker.localUser(
            tenantID: "acme", issuer: issuer, claims: claims("u2", email: "erin@example.com", verified: false),
            linkByVerifiedEmail: true)
        #expect(unverified.subject != erin.subject && unverified.email == nil)
        let notAsked = try await linker.localUser(
            tenantID: "acme", issuer: issuer, claims: claims("u1", email: "erin@example.com", verified: true))
        #expect(notAsked.subject != erin.subject && notAsked.passwordHash == IdentityLinker.noPassword)

        // Two local users share the email: neither is taken over.
        let ambiguous = try await linker.localUser(
            tenantID: "acme", issuer: issuer, claims: claims("u4", email: "erin@example.com", verified: true),
            linkByVerifiedEmail: true)
        #expect(ambiguous.subject != erin.subject && ambiguous.passwordHash == IdentityLinker.noPassword)

        // A disabled match is refused, not replaced by a new user.
        var frank = LocalUser(tenantID: "acme", username: "frank", email: "frank@example.com", passwordHash: "ph")
        frank.disabled = true
        try await auth.addUser(frank)
        await #expect(throws: FederationError.userDisabled) {
            try await linker.localUser(
                tenantID: "acme", issuer: issuer, claims: claims("u5", email: "frank@example.com", verified: true),
                linkByVerifiedEmail: true)
        }
    }

    /// An upstream's claims holding control characters (issue 62 §2): an email cut short at
    /// U+0000 by SQLite named someone else; a subject holding one is refused; a name keeps its
    /// words with the control characters made visible. Both engines.
    @Test(arguments: StoreBackend.available)
    func controlCharactersInClaimsTakeNoOneOver(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let linker = IdentityLinker(users: auth, links: auth)
        let victim = LocalUser(tenantID: "acme", username: "victim", email: "victim@example.com", passwordHash: "ph")
        try await auth.addUser(victim)
        var forged = claims("evil-1", email: "victim@example.com\u{0}.evil.example", verified: true)
        forged["name"] = .string("Mallory\u{0}\u{1B}[2J")
        let linked = try await linker.localUser(tenantID: "acme", issuer: issuer, claims: forged, linkByVerifiedEmail: true)
        #expect(linked.subject != victim.subject && linked.email == nil)
        #expect(linked.name == "Mallory\u{FFFD}\u{FFFD}[2J")
        let stored = try await auth.user(tenantID: "acme", username: linked.username)
        #expect(stored?.name == linked.name)
        await #expect(throws: FederationError.self) {
            try await linker.localUser(
                tenantID: "acme", issuer: issuer, claims: claims("victim\u{0}", email: nil, verified: false))
        }
    }
}
