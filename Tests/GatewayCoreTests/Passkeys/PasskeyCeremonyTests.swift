import Foundation
import Testing

@testable import GatewayCore

@Suite("Passkey ceremonies: challenges once and for minutes, passkeys kept, counters moved once")
struct PasskeyCeremonyTests {
    static let origin = "https://demo.example"
    static let party = RelyingParty(id: "demo.example", origins: [origin])

    struct World {
        let database: TestDatabase
        let clock = ManualClock()
        let cache = MemoryCache()
        var ceremonies: PasskeyCeremonies {
            PasskeyCeremonies(store: database.stores.auth, cache: cache, clock: clock.wall)
        }

        static func make() async throws -> World { World(database: try await TestDatabase.make(.sqlite)) }

        /// Registers `authenticator` for `subject` through a whole ceremony.
        func register(_ authenticator: SoftwareAuthenticator, subject: String = "alice") async throws -> StoredPasskey {
            let (token, options) = try await ceremonies.beginRegistration(
                party: PasskeyCeremonyTests.party, partyName: "Demo", tenantID: "acme", subject: subject,
                userName: subject, displayName: subject.capitalized)
            let answer = try authenticator.registration(
                rpID: options.rp.id, challenge: Array(Base64URL.decode(options.challenge)!),
                origin: PasskeyCeremonyTests.origin)
            return try await ceremonies.finishRegistration(
                token: token, tenantID: "acme", answer: answer, party: PasskeyCeremonyTests.party, name: "Phone",
                trail: nil)
        }

        /// Signs in with `authenticator` through a whole ceremony (no account named).
        func signIn(_ authenticator: SoftwareAuthenticator, subject: String? = nil) async throws -> StoredPasskey {
            let (token, options) = try await ceremonies.beginAuthentication(
                party: PasskeyCeremonyTests.party, tenantID: "acme", subject: subject)
            let answer = try authenticator.assertion(
                rpID: options.rpId, challenge: Array(Base64URL.decode(options.challenge)!),
                origin: PasskeyCeremonyTests.origin, userHandle: Array("alice".utf8))
            return try await ceremonies.finishAuthentication(
                token: token, tenantID: "acme", answer: answer, party: PasskeyCeremonyTests.party)
        }
    }

    @Test(
        "register, then sign in with no name typed: the options are what platforms take; the counter moves and is kept")
    func registerAndSignIn() async throws {
        let world = try await World.make()
        defer { world.database.remove() }
        var authenticator = SoftwareAuthenticator.es256()
        let (_, options) = try await world.ceremonies.beginRegistration(
            party: Self.party, partyName: "Demo", tenantID: "acme", subject: "alice", userName: "alice",
            displayName: "Alice")
        #expect(
            options.rp == .init(id: "demo.example", name: "Demo")
                && options.user.id == Base64URL.encode(Array("alice".utf8)))
        #expect(options.pubKeyCredParams.map(\.alg) == [-7, -8, -257] && options.timeout == 300_000)
        #expect(
            options.authenticatorSelection.userVerification == "required"
                && options.authenticatorSelection.requireResidentKey)
        #expect(Base64URL.decode(options.challenge)?.count == 32 && options.excludeCredentials.isEmpty)
        let json = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(json.contains(#""residentKey":"required""#) && json.contains(#""attestation":"none""#), "\(json)")

        let passkey = try await world.register(authenticator)
        #expect(passkey.subject == "alice" && passkey.signCount == 1 && passkey.name == "Phone")
        // A second registration excludes the first passkey.
        let again = try await world.ceremonies.beginRegistration(
            party: Self.party, partyName: "Demo", tenantID: "acme", subject: "alice", userName: "alice",
            displayName: "Alice")
        #expect(again.options.excludeCredentials.map(\.id) == [Base64URL.encode(authenticator.credentialID)])

        authenticator.signCount = 7
        let used = try await world.signIn(authenticator)
        #expect(used.subject == "alice" && used.signCount == 7 && used.lastUsedAt == world.clock.wall.now())
        #expect(
            try await world.database.stores.auth.passkey(tenantID: "acme", credentialID: authenticator.credentialID)?
                .signCount == 7)
        // Named, the options list the account's passkeys.
        let named = try await world.ceremonies.beginAuthentication(
            party: Self.party, tenantID: "acme", subject: "alice")
        #expect(named.options.allowCredentials.map(\.id) == [Base64URL.encode(authenticator.credentialID)])
        #expect(named.options.rpId == "demo.example" && named.options.userVerification == "required")
    }

    @Test(
        "refused: a replayed or expired challenge, the other ceremony's token, an unknown credential, another account's, a registered one, a cloned counter"
    )
    func refusals() async throws {
        let world = try await World.make()
        defer { world.database.remove() }
        var authenticator = SoftwareAuthenticator.es256()
        _ = try await world.register(authenticator)

        // A challenge answers once.
        let (token, options) = try await world.ceremonies.beginAuthentication(
            party: Self.party, tenantID: "acme", subject: nil)
        authenticator.signCount = 2
        let answer = try authenticator.assertion(
            rpID: "demo.example", challenge: Array(Base64URL.decode(options.challenge)!), origin: Self.origin,
            userHandle: nil)
        _ = try await world.ceremonies.finishAuthentication(
            token: token, tenantID: "acme", answer: answer, party: Self.party)
        await #expect(throws: PasskeyCeremonyError.expired) {
            try await world.ceremonies.finishAuthentication(
                token: token, tenantID: "acme", answer: answer, party: Self.party)
        }
        // ...within its lifetime, and in its tenant.
        let late = try await world.ceremonies.beginAuthentication(party: Self.party, tenantID: "acme", subject: nil)
        world.clock.advance(PasskeyCeremonies.lifetime)
        await #expect(throws: PasskeyCeremonyError.expired) {
            try await world.ceremonies.finishAuthentication(
                token: late.token, tenantID: "acme", answer: answer, party: Self.party)
        }
        let elsewhere = try await world.ceremonies.beginAuthentication(
            party: Self.party, tenantID: "acme", subject: nil)
        await #expect(throws: PasskeyCeremonyError.expired) {
            try await world.ceremonies.finishAuthentication(
                token: elsewhere.token, tenantID: "beta", answer: answer, party: Self.party)
        }
        // A registration's token does not finish a sign-in.
        let registration = try await world.ceremonies.beginRegistration(
            party: Self.party, partyName: "Demo", tenantID: "acme", subject: "alice", userName: "alice",
            displayName: "Alice")
        await #expect(throws: PasskeyCeremonyError.expired) {
            try await world.ceremonies.finishAuthentication(
                token: registration.token, tenantID: "acme", answer: answer, party: Self.party)
        }

        // A credential the tenant does not hold, or not the named account's.
        var stranger = SoftwareAuthenticator.es256()
        stranger.credentialID = [7, 7, 7]
        await #expect(throws: PasskeyCeremonyError.unknownCredential) { try await world.signIn(stranger) }
        authenticator.signCount = 3
        await #expect(throws: PasskeyCeremonyError.unknownCredential) {
            try await world.signIn(authenticator, subject: "bob")
        }

        // The same authenticator registered twice.
        await #expect(throws: PasskeyCeremonyError.alreadyRegistered) {
            try await world.register(authenticator, subject: "bob")
        }

        // A copy of the key whose counter is behind: refused, naming the owner for the audit trail.
        var clone = authenticator
        clone.signCount = 1
        await #expect(throws: PasskeyCeremonyError.refused(.counterWentBack(stored: 2, received: 1), subject: "alice"))
        {
            try await world.signIn(clone)
        }
        // A signature by another key under this credential ID.
        var impostor = SoftwareAuthenticator.es256()
        impostor.credentialID = authenticator.credentialID
        impostor.signCount = 50
        await #expect(throws: PasskeyCeremonyError.refused(.signatureInvalid, subject: "alice")) {
            try await world.signIn(impostor)
        }
        #expect(
            try await world.database.stores.auth.passkey(tenantID: "acme", credentialID: authenticator.credentialID)?
                .signCount == 2)
    }

    @Test("two answers checked against one counter value: only the first moves it")
    func parallelUsesOfOneCounter() async throws {
        let world = try await World.make()
        defer { world.database.remove() }
        var authenticator = SoftwareAuthenticator.ed25519()
        _ = try await world.register(authenticator)
        authenticator.signCount = 5
        var answers: [(String, AuthenticationResponseJSON)] = []
        for _ in 0..<2 {
            let (token, options) = try await world.ceremonies.beginAuthentication(
                party: Self.party, tenantID: "acme", subject: nil)
            answers.append(
                (
                    token,
                    try authenticator.assertion(
                        rpID: "demo.example", challenge: Array(Base64URL.decode(options.challenge)!),
                        origin: Self.origin,
                        userHandle: nil)
                ))
        }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for (token, answer) in answers {
                group.addTask {
                    (try? await world.ceremonies.finishAuthentication(
                        token: token, tenantID: "acme", answer: answer, party: Self.party))
                        != nil
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1, "\(outcomes)")
    }

    @Test("a user holds a bounded number of passkeys: registration is refused past it")
    func bounded() async throws {
        let world = try await World.make()
        defer { world.database.remove() }
        for index in 0..<StoredPasskey.maximumPerUser {
            var authenticator = SoftwareAuthenticator.ed25519()
            authenticator.credentialID = [UInt8(index), 1]
            _ = try await world.register(authenticator)
        }
        await #expect(throws: PasskeyCeremonyError.tooMany) {
            try await world.ceremonies.beginRegistration(
                party: Self.party, partyName: "Demo", tenantID: "acme", subject: "alice", userName: "alice",
                displayName: "Alice")
        }
    }
}
