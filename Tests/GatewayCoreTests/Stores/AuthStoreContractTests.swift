import Foundation
import Logging
import Testing
@testable import GatewayCore

/// The auth stores' contract, on every engine (see ``StoreBackend``).
@Suite("Auth store contract")
struct AuthStoreContractTests {
    private func family(
        _ id: String, subject: String = "alice", client: String = "app", session: String? = nil, now: Date = Date()
    ) -> RefreshFamily {
        RefreshFamily(
            familyID: id, tenantID: "acme", clientID: client, subject: subject, scope: "openid", nonce: "n-\(id)",
            dpopJKT: nil,
            createdAt: StoreClock.date(StoreClock.milliseconds(now)),
            absoluteExpiry: StoreClock.date(StoreClock.milliseconds(now.addingTimeInterval(3600))),
            sessionID: session)
    }

    /// `subject` holds a refresh family `f-SUBJECT` (token hash `h-SUBJECT`) and a live access
    /// token `at-SUBJECT` of it.
    private func holdTokens(_ auth: some AuthStore, subject: String, now: Date) async throws {
        try await auth.createFamily(
            family("f-\(subject)", subject: subject, now: now), tokenHash: "h-\(subject)",
            idleExpiry: now.addingTimeInterval(600))
        try await auth.recordAccessToken(
            familyID: "f-\(subject)", jti: "at-\(subject)", expiresAt: now.addingTimeInterval(300))
    }

    /// Users alice and bob (subjects alike) of tenant acme, each holding a session with a live
    /// access token (`at-<subject>`, family hash `h-<subject>`) and a mini-app token
    /// (`mt-<subject>`), all expiring five minutes after `now`.
    private func usersHoldingTokens(_ stores: DurableStores, now: Date) async throws {
        for subject in ["alice", "bob"] {
            try await stores.auth.addUser(
                LocalUser(tenantID: "acme", username: subject, subject: subject, passwordHash: "ph"))
            try await holdTokens(stores.auth, subject: subject, now: now)
            try await stores.tokenLedger.record(
                UserMiniAppKey(tenantID: "acme", userID: subject, miniAppID: "hello"), jti: "mt-\(subject)",
                expiresAt: now.addingTimeInterval(300))
        }
    }

    /// A fresh database of `backend`, its auth stores, `now` at the stores' precision and an
    /// idle expiry ten minutes on.
    private func refreshWorld(
        _ backend: StoreBackend
    ) async throws -> (database: TestDatabase, auth: any AuthStore, now: Date, idle: Date) {
        let database = try await TestDatabase.make(backend)
        let now = StoreClock.date(StoreClock.milliseconds(Date()))
        return (database, database.stores.auth, now, now.addingTimeInterval(600))
    }

    @Test(arguments: StoreBackend.available) func clientsUsersAndKeys(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let client = OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: ["https://app.example/cb"])
        try await auth.addClient(client, secretHash: "hash-1")
        await #expect(throws: AuthStoreError.alreadyExists("client app")) {
            try await auth.addClient(client, secretHash: nil)
        }
        #expect(try await auth.client(tenantID: "acme", clientID: "app")?.revision == 1)
        var changed = client
        changed.redirectURIs.append("https://app.example/cb2")
        try await auth.updateClient(changed)
        changed.revision = 2  // every change bumps it
        #expect(try await database.another().auth.client(tenantID: "acme", clientID: "app") == changed)
        #expect(try await auth.clientSecretHash(tenantID: "acme", clientID: "app") == "hash-1")
        #expect(try await auth.clients(tenantID: "other").isEmpty)
        try await auth.removeClient(tenantID: "acme", clientID: "app")
        await #expect(throws: AuthStoreError.notFound("client app")) {
            try await auth.removeClient(tenantID: "acme", clientID: "app")
        }
        await #expect(throws: AuthStoreError.notFound("client nope")) {
            try await auth.updateClient(
                OAuthClient(tenantID: "acme", clientID: "nope", redirectURIs: ["https://x.example/cb"]))
        }

        var user = LocalUser(
            tenantID: "acme", username: "alice", subject: "sub-alice", name: "Alice", email: nil, passwordHash: "ph")
        try await auth.addUser(user)
        await #expect(throws: AuthStoreError.self) { try await auth.addUser(user) }
        await #expect(throws: AuthStoreError.self) {
            try await auth.addUser(
                LocalUser(tenantID: "acme", username: "other", subject: "sub-alice", passwordHash: "ph"))
        }
        user.disabled = true
        user.email = "a@example.com"
        user.phone = "+819012345678"
        try await auth.updateUser(user)
        #expect(try await auth.user(tenantID: "acme", subject: "sub-alice") == user)
        // Found by phone number, in its tenant only (sign-in by SMS code).
        #expect(try await auth.users(tenantID: "acme", phone: "+819012345678", limit: 2).map(\.username) == ["alice"])
        #expect(try await auth.users(tenantID: "beta", phone: "+819012345678", limit: 2).isEmpty)
        #expect(try await auth.users(tenantID: "acme", phone: "+819012345679", limit: 2).isEmpty)
        #expect(try await auth.user(tenantID: "acme", username: "alice") == user)
        #expect(try await auth.users(tenantID: "acme").map(\.username) == ["alice"])
        #expect(try await auth.user(tenantID: "beta", username: "alice") == nil)
        // Every write bumps the revision (the admin API's ETag); a change that throws writes nothing.
        #expect(try await auth.user(tenantID: "acme", username: "alice")?.revision == 2)
        let renamed = try await auth.writeUser(tenantID: "acme", username: "alice", trail: nil) { current in
            var changed = current
            (changed.name, changed.username, changed.subject) = ("Alice 2", "mallory", "sub-mallory")
            return changed
        }
        #expect(renamed.revision == 3 && renamed.username == "alice" && renamed.subject == "sub-alice")
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await auth.writeUser(tenantID: "acme", username: "alice", trail: nil) { _ in throw Refused() }
        }
        #expect(try await auth.user(tenantID: "acme", username: "alice").map { ($0.name, $0.revision) } ?? (nil, 0) == ("Alice 2", 3))
        let (disabledAgain, _) = try await auth.setUserDisabled(true, tenantID: "acme", subject: "sub-alice", now: Date())
        #expect(disabledAgain.revision == 3, "already disabled: nothing written")
        let (enabled, _) = try await auth.setUserDisabled(false, tenantID: "acme", subject: "sub-alice", now: Date())
        #expect(enabled.revision == 4 && !enabled.disabled)
        // Pages by username, filtered by state.
        try await auth.addUsers(
            ["carol", "bob", "dave"].map { LocalUser(tenantID: "acme", username: $0, disabled: $0 == "bob", passwordHash: "ph") })
        #expect(try await auth.users(tenantID: "acme", after: nil, limit: 2, disabled: nil).map(\.username) == ["alice", "bob"])
        #expect(try await auth.users(tenantID: "acme", after: "bob", limit: 5, disabled: nil).map(\.username) == ["carol", "dave"])
        #expect(try await auth.users(tenantID: "acme", after: nil, limit: 5, disabled: true).map(\.username) == ["bob"])
        #expect(try await auth.users(tenantID: "acme", after: "alice", limit: 5, disabled: false).map(\.username) == ["carol", "dave"])
        for name in ["carol", "bob", "dave"] {
            let subject = try #require(try await auth.user(tenantID: "acme", username: name)).subject
            _ = try await auth.eraseUser(tenantID: "acme", subject: subject, now: Date())
        }

        // A TOTP secret round-trips, sealed at rest (no plaintext in the files or rows), and can be removed.
        let secret = "TOTPSECRETMARKERQWERTYUIOPASDFGH"
        user.totpSecret = SecretValue(secret)
        try await auth.updateUser(user)
        #expect(
            try await database.another().auth.user(tenantID: "acme", username: "alice")?.totpSecret
                == SecretValue(secret))
        #expect(try await database.bytesAtRest().range(of: Data(secret.utf8)) == nil)
        let bob = LocalUser(
            tenantID: "acme", username: "bob", subject: "sub-bob", passwordHash: "ph", totpSecret: SecretValue(secret))
        try await auth.addUser(bob)
        #expect(try await auth.user(tenantID: "acme", subject: "sub-bob") == bob)
        user.totpSecret = nil
        try await auth.updateUser(user)
        #expect(try await auth.user(tenantID: "acme", username: "alice")?.totpSecret == nil)

        let older = try SigningKey.generate(tenantID: "acme", now: Date().addingTimeInterval(-60))
        let newer = try SigningKey.generate(tenantID: "acme", now: Date().addingTimeInterval(-30))
        let rsa = try SigningKey.generate(tenantID: "acme", algorithm: .rs256)
        try await auth.addSigningKey(older)
        try await auth.addSigningKey(newer)
        try await auth.addSigningKey(rsa)
        // Schedules come back as stored (whole milliseconds); one change of several is all or nothing.
        let now = StoreClock.now()
        func stored(_ date: Date) -> Date { StoreClock.date(StoreClock.milliseconds(date)) }
        let retiring = SigningKey.Schedule(
            signFrom: older.schedule.signFrom, signUntil: now, unpublishAt: stored(now.addingTimeInterval(660)))
        let brought = SigningKey.Schedule(signFrom: stored(now.addingTimeInterval(-1)))
        await #expect(throws: AuthStoreError.self) {
            try await auth.scheduleSigningKeys(tenantID: "acme", [older.kid: retiring, "missing": brought])
        }
        #expect(try await auth.signingKeys(tenantID: "acme").first { $0.kid == older.kid }?.schedule == older.schedule)
        let tokenBefore = try await database.stores.tenants.changeToken()
        try await auth.scheduleSigningKeys(tenantID: "acme", [older.kid: retiring, newer.kid: brought])
        #expect(try await database.stores.tenants.changeToken() > tokenBefore, "gateways are told the keys changed")
        let keys = try await database.another().auth.signingKeys(tenantID: "acme")
        #expect(keys.map(\.kid) == [rsa.kid, newer.kid, older.kid])
        #expect(keys.map(\.schedule) == [rsa.schedule, brought, retiring])
        #expect(keys.map(\.algorithm) == [.rs256, .es256, .es256])
        // A tenant's first key of an algorithm: of writers racing on two connections, one adds it.
        // They share one instant, as KeyRing's do (it signs from before the instant it checks
        // at): a key made after another racer looked at the clock would not sign at its instant
        // yet, and a slow machine would let that racer add a second one.
        let raceStart = Date()
        let racers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<6 {
                let store = index % 2 == 0 ? auth : try await database.another().auth
                group.addTask {
                    try await store.addFirstSigningKey(
                        try SigningKey.generate(tenantID: "beta", algorithm: .rs256, now: raceStart), now: raceStart)
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(racers == 1)
        #expect(try await auth.signingKeys(tenantID: "beta").count == 1)
        #expect(try await !auth.addFirstSigningKey(try SigningKey.generate(tenantID: "acme"), now: Date()), "acme signs already")
        let phases = TenantKeys(keys)
        #expect(keys.map { phases.phase(of: $0, at: now) } == [.signing, .signing, .verifyOnly])
        #expect(phases.phase(of: keys[2], at: now.addingTimeInterval(661)) == .retired)
        // Both kinds of key come back as they went in (P-256 and RSA PEMs are told apart).
        #expect(keys[0].pemRepresentation == rsa.pemRepresentation)
        #expect(keys[1].pemRepresentation == newer.pemRepresentation)
        let atRest = try await database.bytesAtRest()
        for key in [newer, rsa] {
            #expect(atRest.range(of: Data(key.pemRepresentation.utf8)) == nil, "a private key is stored unsealed")
        }
    }

    /// Bulk registration (`client import`, `user import`) is one transaction: a conflict or an
    /// invalid entry anywhere in the batch stores nothing, and the error names the culprit.
    /// Text PostgreSQL cannot store (U+0000) that no validation caught is the request's fault:
    /// ``UnstorableText`` (answered 400), nothing written, never an internal error (issue 62).
    /// (SQLite through GRDB would cut it short instead, which is why every path that writes
    /// such a column refuses control characters first: `UserPatch.problem`, the linker.)
    @Test(arguments: StoreBackend.postgresOnly) func unstorableTextIsTheRequestsFault(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let user = LocalUser(tenantID: "acme", username: "nina", name: "N\u{0}x", passwordHash: "ph")
        await #expect(throws: UnstorableText.self) { try await database.stores.auth.addUser(user) }
        #expect(try await database.stores.auth.user(tenantID: "acme", username: "nina") == nil)
    }

    @Test(arguments: StoreBackend.available) func batchesAreAllOrNothing(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        func client(_ id: String, redirect: String = "https://app.example/cb") -> NewClient {
            NewClient(OAuthClient(tenantID: "acme", clientID: id, redirectURIs: [redirect]), secretHash: "hash-\(id)")
        }
        try await auth.addClient(client("taken").client, secretHash: nil)
        await #expect(throws: AuthStoreError.alreadyExists("client taken")) {
            try await auth.addClients([client("a"), client("b"), client("taken"), client("c")])
        }
        await #expect(throws: AuthStoreError.self) {
            try await auth.addClients([client("d"), client("e", redirect: "not a uri")])
        }
        #expect(try await auth.clients(tenantID: "acme").map(\.clientID) == ["taken"])
        let batch = (0..<300).map { client(String(format: "bulk-%03d", $0)) }
        try await auth.addClients(batch)
        #expect(try await database.another().auth.clients(tenantID: "acme").count == 301)
        #expect(try await auth.clientSecretHash(tenantID: "acme", clientID: "bulk-299") == "hash-bulk-299")

        func user(_ name: String, subject: String? = nil) -> LocalUser {
            LocalUser(tenantID: "acme", username: name, subject: subject ?? "sub-\(name)", passwordHash: "ph-\(name)")
        }
        try await auth.addUser(user("alice"))
        await #expect(throws: AuthStoreError.alreadyExists("user alice")) {
            try await auth.addUsers([user("u1"), user("alice")])
        }
        await #expect(throws: AuthStoreError.alreadyExists("user with subject sub-alice")) {
            try await auth.addUsers([user("u2"), user("u3", subject: "sub-alice")])
        }
        #expect(try await auth.users(tenantID: "acme").map(\.username) == ["alice"])
        let users = (0..<300).map { user(String(format: "bulk-%03d", $0)) }
        try await auth.addUsers(users)
        let stored = try await database.another().auth.users(tenantID: "acme")
        #expect(stored.count == 301)
        #expect(stored.last == users.last)
    }

    @Test(arguments: StoreBackend.available) func rotationReuseAndRevocation(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let now = Date()
        let idle = now.addingTimeInterval(600)
        // The same `now` as the expectation below (a fresh Date() could fall in the next millisecond).
        try await auth.createFamily(family("f1", session: "s1", now: now), tokenHash: "h1", idleExpiry: idle)
        #expect(try await auth.family(ofTokenHash: "h1")?.sessionID == "s1")
        #expect(
            try await auth.rotate(
                tokenHash: "h1", tenantID: "acme", clientID: "other", newHash: "x", now: now, idleExpiry: idle)
                == .invalid)
        #expect(
            try await auth.rotate(
                tokenHash: "h1", tenantID: "acme", clientID: "app", newHash: "h2", now: now, idleExpiry: idle)
                == .rotated(family("f1", session: "s1", now: now)))
        try await auth.recordAccessToken(familyID: "f1", jti: "live", expiresAt: now.addingTimeInterval(300))
        try await auth.recordAccessToken(familyID: "f1", jti: "dead", expiresAt: now.addingTimeInterval(-1))
        // The rotated token comes back: the family is revoked, its live access tokens named.
        let reuse = try await auth.rotate(
            tokenHash: "h1", tenantID: "acme", clientID: "app", newHash: "h3", now: now, idleExpiry: idle)
        guard case .reused(let revoked, let tokens) = reuse else {
            Issue.record("expected reuse, got \(reuse)")
            return
        }
        #expect(revoked.familyID == "f1")
        #expect(tokens.map(\.jti) == ["live"])
        #expect(
            try await auth.rotate(
                tokenHash: "h2", tenantID: "acme", clientID: "app", newHash: "h4", now: now, idleExpiry: idle)
                == .invalid)
        #expect(try await auth.family(ofTokenHash: "h2")?.revoked == true)
        // Idle expiry.
        try await auth.createFamily(family("f2"), tokenHash: "g1", idleExpiry: now.addingTimeInterval(-1))
        #expect(
            try await auth.rotate(
                tokenHash: "g1", tenantID: "acme", clientID: "app", newHash: "g2", now: now, idleExpiry: idle)
                == .invalid)
        #expect(
            try await auth.rotate(
                tokenHash: "unknown", tenantID: "acme", clientID: "app", newHash: "z", now: now, idleExpiry: idle)
                == .invalid)
    }

    /// Issue 32: a grant's access token is recorded by the grant's own write (a new family or a
    /// rotation), not by a second transaction; only a rotation that happened records it, and
    /// a reuse then revokes exactly the live ones.
    @Test(arguments: StoreBackend.available) func accessTokensRecordedWithTheWrite(backend: StoreBackend) async throws {
        let (database, auth, now, idle) = try await refreshWorld(backend)
        defer { database.remove() }
        func token(_ jti: String, _ seconds: TimeInterval) -> IssuedAccessToken {
            IssuedAccessToken(jti: jti, expiresAt: now.addingTimeInterval(seconds))
        }
        try await auth.createFamily(family("f1", now: now), tokenHash: "h1", idleExpiry: idle, accessToken: token("first", 300))
        try await auth.recordAccessToken(familyID: "f1", jti: "expired", expiresAt: now.addingTimeInterval(-5))
        #expect(
            try await auth.rotate(
                tokenHash: "h1", tenantID: "acme", clientID: "app", newHash: "h2", now: now, idleExpiry: idle,
                accessToken: token("second", 300)) == .rotated(family("f1", now: now)))
        // Refused rotations record nothing: another client, an unknown token.
        #expect(
            try await auth.rotate(
                tokenHash: "h2", tenantID: "acme", clientID: "other", newHash: "x", now: now, idleExpiry: idle,
                accessToken: token("foreign", 300)) == .invalid)
        #expect(
            try await auth.rotate(
                tokenHash: "nope", tenantID: "acme", clientID: "app", newHash: "y", now: now, idleExpiry: idle,
                accessToken: token("unknown", 300)) == .invalid)
        // A reuse records nothing either, and names the live tokens the two writes recorded.
        let reuse = try await auth.rotate(
            tokenHash: "h1", tenantID: "acme", clientID: "app", newHash: "h3", now: now, idleExpiry: idle,
            accessToken: token("reuse", 300))
        guard case .reused(_, let tokens) = reuse else {
            Issue.record("expected reuse, got \(reuse)")
            return
        }
        #expect(Set(tokens.map(\.jti)) == ["first", "second"])
        #expect(try await auth.revokeFamily("f1", now: now).map(\.jti).sorted() == ["first", "second"])
        // The rotation forgot the family's expired record: a purge finds none left to delete.
        #expect(try await auth.purgeRefreshState(now: now, limit: 100).accessTokens == 0)
    }

    /// Issue 32: a refresh reads the family and its user together; the user is the store's
    /// own (sealed TOTP secret opened), nil once no user has the family's subject.
    @Test(arguments: StoreBackend.available) func familyWithItsUser(backend: StoreBackend) async throws {
        let (database, auth, now, idle) = try await refreshWorld(backend)
        defer { database.remove() }
        var alice = LocalUser(
            tenantID: "acme", username: "alice", subject: "alice", name: "Alice", email: "alice@example.com",
            picture: nil, disabled: true, passwordHash: "ph", totpSecret: SecretValue("JBSWY3DPEHPK3PXP"))
        try await auth.addUser(alice)
        // A code exchange gets the user from the write that creates the family (issue 32).
        let created = try await auth.createFamily(
            family("f1", subject: "alice", session: "s1", now: now), tokenHash: "h1", idleExpiry: idle,
            accessToken: IssuedAccessToken(jti: "j1", expiresAt: now.addingTimeInterval(300)))
        #expect(created == alice)
        let orphanCreated = try await auth.createFamily(
            family("f2", subject: "gone", now: now), tokenHash: "h2", idleExpiry: idle, accessToken: nil)
        #expect(orphanCreated == nil)
        let read = try await auth.familyWithUser(ofTokenHash: "h1")
        #expect(read?.family == family("f1", subject: "alice", session: "s1", now: now))
        #expect(read?.user == alice)
        #expect(read?.family == (try await auth.family(ofTokenHash: "h1")))
        let orphan = try await auth.familyWithUser(ofTokenHash: "h2")
        #expect(orphan?.family.familyID == "f2" && orphan?.user == nil)
        #expect(try await auth.familyWithUser(ofTokenHash: "unknown") == nil)
        alice.disabled = false
        alice.totpSecret = nil
        try await auth.updateUser(alice)
        #expect(try await database.another().auth.familyWithUser(ofTokenHash: "h1")?.user == alice)
    }

    /// Issue 32: a refresh's store step checks the family's own conditions (its DPoP key, its
    /// user) before it rotates, in one round trip on PostgreSQL; a refused step burns nothing.
    @Test(arguments: StoreBackend.available) func checkedRotation(backend: StoreBackend) async throws {
        let (database, auth, now, idle) = try await refreshWorld(backend)
        defer { database.remove() }
        var alice = LocalUser(
            tenantID: "acme", username: "alice", subject: "alice", name: "Alice", email: nil, picture: nil,
            disabled: false, passwordHash: "ph", totpSecret: nil)
        try await auth.addUser(alice)
        var bound = family("f1", now: now)
        bound.dpopJKT = "key-a"
        try await auth.createFamily(bound, tokenHash: "h1", idleExpiry: idle)
        func step(_ hash: String, _ new: String, dpop: String?, client: String = "app") async throws
            -> CheckedRefreshRotation
        {
            try await auth.rotateChecked(
                tokenHash: hash, tenantID: "acme", clientID: client, newHash: new, now: now, idleExpiry: idle,
                accessToken: IssuedAccessToken(jti: "j-\(new)", expiresAt: now.addingTimeInterval(300)),
                presentedDPoPJKT: dpop)
        }
        // Another key, or none: held, and the token still rotates with the right one.
        #expect(try await step("h1", "x", dpop: "key-b") == .held(bound, user: alice))
        #expect(try await step("h1", "x", dpop: nil) == .held(bound, user: alice))
        #expect(try await step("h1", "h2", dpop: "key-a") == .rotation(.rotated(bound), user: alice))
        // The conditions come before reuse detection: a wrong key does not revoke the family.
        #expect(try await step("h1", "y", dpop: "key-b") == .held(bound, user: alice))
        #expect(try await auth.family(ofTokenHash: "h2")?.revoked == false)
        #expect(try await step("h2", "z", dpop: "key-a", client: "other") == .rotation(.invalid, user: nil))
        guard case .rotation(.reused(let reused, _), _) = try await step("h1", "w", dpop: "key-a") else {
            Issue.record("a rotated token came back and was not found reused")
            return
        }
        #expect(reused.familyID == "f1")
        #expect(try await step("h2", "v", dpop: "key-a") == .rotation(.invalid, user: nil))
        #expect(try await step("unknown", "u", dpop: nil) == .rotation(.invalid, user: nil))
        // A disabled user, a removed one: held; enabled again, the untouched token rotates, and
        // only that rotation recorded its access token.
        try await auth.createFamily(family("f2", now: now), tokenHash: "g1", idleExpiry: idle)
        try await auth.createFamily(family("f3", subject: "gone", now: now), tokenHash: "k1", idleExpiry: idle)
        alice.disabled = true
        try await auth.updateUser(alice)
        #expect(try await step("g1", "g2", dpop: nil) == .held(family("f2", now: now), user: alice))
        #expect(try await step("k1", "k2", dpop: nil) == .held(family("f3", subject: "gone", now: now), user: nil))
        alice.disabled = false
        try await auth.updateUser(alice)
        #expect(try await step("g1", "g2", dpop: nil) == .rotation(.rotated(family("f2", now: now)), user: alice))
        #expect(try await auth.revokeFamily("f2", now: now).map(\.jti) == ["j-g2"])
    }

    /// Refresh state stays bounded: expired access-token records go, and so do families that can
    /// never be used again once none of their access tokens lives (a logout must still reach those).
    @Test(arguments: StoreBackend.available) func deadRefreshStateIsPurged(backend: StoreBackend) async throws {
        let (database, auth, now, idle) = try await refreshWorld(backend)
        defer { database.remove() }
        try await auth.createFamily(family("live", now: now), tokenHash: "live-1", idleExpiry: idle)
        // (Recording a token drops the family's expired records, so the expired one comes last.)
        try await auth.recordAccessToken(familyID: "live", jti: "live-new", expiresAt: now.addingTimeInterval(300))
        try await auth.recordAccessToken(familyID: "live", jti: "live-old", expiresAt: now.addingTimeInterval(-1))
        // Past its absolute expiry (created two hours ago, one-hour lifetime), nothing alive.
        try await auth.createFamily(
            family("expired", now: now.addingTimeInterval(-7200)), tokenHash: "expired-1",
            idleExpiry: now.addingTimeInterval(-3600))
        // Past its absolute expiry, but its last access token still lives.
        try await auth.createFamily(
            family("holding", now: now.addingTimeInterval(-7200)), tokenHash: "holding-1",
            idleExpiry: now.addingTimeInterval(-3600))
        try await auth.recordAccessToken(familyID: "holding", jti: "held", expiresAt: now.addingTimeInterval(120))
        try await auth.createFamily(family("revoked", now: now), tokenHash: "revoked-1", idleExpiry: idle)
        _ = try await auth.revokeFamily("revoked", now: now)

        // Batches of one: the retention loops until a round deletes less than a batch.
        let purged = try await RefreshRetention(store: auth, batch: 1, clock: { now }, logger: Logger(label: "test"))
            .purge()
        #expect(purged == RefreshPurge(families: 2, accessTokens: 1))
        #expect(try await auth.family(ofTokenHash: "expired-1") == nil)
        #expect(try await auth.family(ofTokenHash: "revoked-1") == nil)
        #expect(try await auth.family(ofTokenHash: "holding-1") != nil)
        #expect(
            try await auth.rotate(
                tokenHash: "live-1", tenantID: "acme", clientID: "app", newHash: "live-2", now: now, idleExpiry: idle)
                == .rotated(family("live", now: now)))
        // A logout still names the live access tokens of the families left.
        #expect(try await auth.revokeFamily("live", now: now).map(\.jti) == ["live-new"])
        #expect(try await auth.revokeFamily("holding", now: now).map(\.jti) == ["held"])

        // Three minutes on, "held" has expired: its family goes; "live" keeps its family while "live-new" lives.
        let later = try await RefreshRetention(
            store: auth, batch: 1, clock: { now.addingTimeInterval(180) }, logger: Logger(label: "test")
        ).purge()
        #expect(later == RefreshPurge(families: 1, accessTokens: 1))
        #expect(try await auth.family(ofTokenHash: "holding-1") == nil)
        #expect(try await auth.family(ofTokenHash: "live-2")?.familyID == "live")
    }

    /// `gatewayctl user delete`: the account and its data go in one transaction, its live tokens
    /// are recorded as revoked, and another user's data stays.
    /// Issue 47: disabling revokes what the user holds in the same transaction; re-enabling
    /// revives nothing; another user is untouched.
    @Test(arguments: StoreBackend.available) func disablingAUser(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let stores = database.stores
        let auth = stores.auth
        _ = try await stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
        let now = StoreClock.date(StoreClock.milliseconds(Date()))
        try await usersHoldingTokens(stores, now: now)
        await #expect(throws: AuthStoreError.notFound("user with subject nobody")) {
            try await auth.setUserDisabled(true, tenantID: "acme", subject: "nobody", now: now)
        }
        let (user, revoked) = try await auth.setUserDisabled(true, tenantID: "acme", subject: "alice", now: now)
        #expect(user.disabled && revoked == 2)
        let revocations = stores.revocations
        for jti in ["at-alice", "mt-alice"] {
            #expect(try await revocations.isRecorded(RevokedTokens.key("acme", jti), now: StoreClock.milliseconds(now)))
        }
        #expect(try await !revocations.isRecorded(RevokedTokens.key("acme", "at-bob"), now: StoreClock.milliseconds(now)))
        #expect(try await auth.family(ofTokenHash: "h-alice")?.revoked == true)
        #expect(try await auth.family(ofTokenHash: "h-bob")?.revoked == false)
        let rotation = try await auth.rotate(
            tokenHash: "h-alice", tenantID: "acme", clientID: "app", newHash: "h2", now: now,
            idleExpiry: now.addingTimeInterval(600))
        #expect(rotation == .invalid, "a disabled user's refresh token is dead")
        // Re-enabled: the user signs in again; nothing of before comes back.
        let (enabled, none) = try await auth.setUserDisabled(false, tenantID: "acme", subject: "alice", now: now)
        #expect(!enabled.disabled && none == 0)
        #expect(try await auth.family(ofTokenHash: "h-alice")?.revoked == true)
        #expect(try await revocations.isRecorded(RevokedTokens.key("acme", "at-alice"), now: StoreClock.milliseconds(now)))
        #expect(try await database.another().auth.user(tenantID: "acme", subject: "alice")?.disabled == false)
    }

    /// Issue 63: a recovery's new password and the end of every session of the user are one
    /// transaction: both stand, or (the change refused) neither.
    @Test(arguments: StoreBackend.available) func aWriteThatEndsSessionsIsOneTransaction(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let stores = database.stores
        let auth = stores.auth
        _ = try await stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
        let now = StoreClock.date(StoreClock.milliseconds(Date()))
        let nowMS = StoreClock.milliseconds(now)
        try await usersHoldingTokens(stores, now: now)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await auth.writeUserEndingSessions(tenantID: "acme", username: "alice", now: now, trail: nil) { _ in
                throw Refused()
            }
        }
        #expect(try await auth.family(ofTokenHash: "h-alice")?.revoked == false, "a refused change ends nothing")
        #expect(try await !stores.revocations.isRecorded(RevokedTokens.key("acme", "at-alice"), now: nowMS))
        await #expect(throws: AuthStoreError.notFound("user nobody")) {
            try await auth.writeUserEndingSessions(tenantID: "acme", username: "nobody", now: now, trail: nil) { $0 }
        }

        let (user, revoked) = try await auth.writeUserEndingSessions(
            tenantID: "acme", username: "alice", now: now,
            trail: { _, _ in Self.trail(.update, "alice", at: now) }
        ) { current in
            var changed = current
            changed.passwordHash = "ph-2"
            return changed
        }
        #expect(user.passwordHash == "ph-2" && user.revision == 2)
        #expect(Set(revoked.map(\.key)) == [RevokedTokens.key("acme", "at-alice"), RevokedTokens.key("acme", "mt-alice")])
        #expect(revoked.allSatisfy { $0.untilMS == RevokedTokens.revokedUntil(expiresAtMS: nowMS + 300_000) })
        for jti in ["at-alice", "mt-alice"] {
            #expect(try await stores.revocations.isRecorded(RevokedTokens.key("acme", jti), now: nowMS))
        }
        #expect(try await auth.family(ofTokenHash: "h-alice")?.revoked == true)
        #expect(try await auth.family(ofTokenHash: "h-bob")?.revoked == false)
        #expect(try await !stores.revocations.isRecorded(RevokedTokens.key("acme", "at-bob"), now: nowMS))
        let another = try await database.another().auth
        #expect(try await another.user(tenantID: "acme", username: "alice")?.passwordHash == "ph-2")
        let records = try await stores.audit.records(matching: AuditQuery(resourceType: .user, limit: 10)).items
        #expect(records.map(\.verb) == [.update], "one audit record, in the same transaction")
    }

    @Test(arguments: StoreBackend.available) func erasingAUser(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let stores = database.stores
        let auth = stores.auth
        _ = try await stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
        let now = StoreClock.date(StoreClock.milliseconds(Date()))
        for subject in ["alice", "bob"] {
            try await auth.addUser(
                LocalUser(
                    tenantID: "acme", username: subject, subject: subject, email: "\(subject)@example.com",
                    passwordHash: "ph"))
            try await auth.addIdentityLink(
                IdentityLink(
                    tenantID: "acme", issuer: "https://idp.example", externalSubject: "ext-\(subject)", subject: subject
                ))
            try await holdTokens(auth, subject: subject, now: now)
            try await auth.grant(["openid", "profile"], tenantID: "acme", subject: subject, clientID: "partner", at: now)
            try await auth.addPasskey(Self.passkey(subject == "alice" ? 1 : 2, subject: subject, at: now), trail: nil)
            let owner = UserMiniAppKey(tenantID: "acme", userID: subject, miniAppID: "hello")
            try await stores.consents.touch(owner)
            _ = try await stores.consents.setConsents(["rakuten.miniapp.user.USER_NAME": .allowed], for: owner)
            _ = try await stores.storage.put(["note": "kept for \(subject)"], for: owner, maxBytes: 10_000)
            try await stores.tokenLedger.record(owner, jti: "mt-\(subject)", expiresAt: now.addingTimeInterval(300))
            try await stores.tokenLedger.record(owner, jti: "mt-old-\(subject)", expiresAt: now.addingTimeInterval(-5))
            _ = try await stores.devices.register(
                PushDevice(
                    id: "dev-\(subject)", tenantID: "acme", userID: subject, provider: .fcm, token: "fcm-\(subject)",
                    platform: .android, createdAt: now, updatedAt: now), maxPerUser: 20)
        }

        _ = try await stores.outbox.enqueue(
            PushMessage(
                id: "msg-1", tenantID: "acme", clientID: "sender",
                content: PushContent(
                    miniAppID: "hello", recipients: .users(["alice", "bob"]), texts: ["default": .init(title: "t", body: "b")]),
                createdAt: now), idempotencyKey: nil, requestHash: "h")
        await #expect(throws: AuthStoreError.notFound("user with subject nobody")) {
            try await auth.eraseUser(tenantID: "acme", subject: "nobody", now: now)
        }
        // A send of hers under an Idempotency-Key is remembered for a day: erased with her.
        try await database.stores.messaging.deliver(
            [], keep: 10,
            recording: MessageSendRecord(
                tenantID: "acme", senderID: "alice", key: "k1", requestHash: "h", outcomes: [], createdAt: now))
        let erased = try await auth.eraseUser(tenantID: "acme", subject: "alice", now: now)
        #expect(erased.revokedTokens == 2)
        #expect(
            erased.deleted == [
                "user_consents": 1, "secure_storage_items": 1, "user_miniapps": 1, "miniapp_tokens": 2,
                "push_devices": 1, "push_deliveries": 1, "auth_identity_links": 1, "auth_client_consents": 2,
                "auth_passkeys": 1, "auth_refresh_families": 1, "auth_users": 1,
                "user_contacts": 0, "user_blocks": 0, "inbox_messages": 0, "message_sends": 1,
            ])
        let other = try await database.another()
        let alice = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "hello")
        #expect(try await other.auth.user(tenantID: "acme", subject: "alice") == nil)
        #expect(
            try await other.auth.identityLink(
                tenantID: "acme", issuer: "https://idp.example", externalSubject: "ext-alice") == nil)
        #expect(try await other.auth.family(ofTokenHash: "h-alice") == nil)
        #expect(try await other.consents.userMiniApps(tenantID: "acme", userID: "alice").isEmpty)
        #expect(try await other.storage.size(of: alice, maxBytes: 10_000).used == 0)
        #expect(try await other.tokenLedger.takeLive(alice, now: now).isEmpty)
        #expect(try await other.devices.devices(tenantID: "acme", userID: "alice").isEmpty)
        #expect(try await other.devices.devices(tenantID: "acme", userID: "bob").map(\.id) == ["dev-bob"])
        // The live tokens are revoked for every replica (until their expiry + skew); the expired one needs no record.
        let nowMS = StoreClock.milliseconds(now)
        #expect(try await other.revocations.isRecorded(RevokedTokens.key("acme", "at-alice"), now: nowMS))
        #expect(try await other.revocations.isRecorded(RevokedTokens.key("acme", "mt-alice"), now: nowMS + 300_000))
        #expect(try await other.revocations.isRecorded(RevokedTokens.key("acme", "mt-old-alice"), now: nowMS) == false)
        // Bob is untouched.
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "hello")
        #expect(try await other.auth.user(tenantID: "acme", subject: "bob") != nil)
        #expect(try await other.auth.family(ofTokenHash: "h-bob") != nil)
        #expect(try await other.consents.userMiniApps(tenantID: "acme", userID: "bob").count == 1)
        #expect(try await other.storage.value(forKey: "note", of: bob) == "kept for bob")
        #expect(try await other.revocations.isRecorded(RevokedTokens.key("acme", "at-bob"), now: nowMS) == false)
    }

    @Test(arguments: StoreBackend.available) func consentGrantsAddUp(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await auth.grantedScopes(tenantID: "acme", subject: "alice", clientID: "partner").isEmpty)
        try await auth.grant(["openid", "profile"], tenantID: "acme", subject: "alice", clientID: "partner", at: now)
        try await auth.grant(["profile", "email"], tenantID: "acme", subject: "alice", clientID: "partner", at: now)
        try await auth.grant(["openid"], tenantID: "acme", subject: "bob", clientID: "partner", at: now)
        try await auth.grant(["openid"], tenantID: "other", subject: "alice", clientID: "partner", at: now)
        let other = try await database.another().auth
        #expect(
            try await other.grantedScopes(tenantID: "acme", subject: "alice", clientID: "partner")
                == ["openid", "profile", "email"])
        #expect(try await other.grantedScopes(tenantID: "acme", subject: "alice", clientID: "another").isEmpty)
        #expect(try await other.grantedScopes(tenantID: "acme", subject: "bob", clientID: "partner") == ["openid"])
    }

    @Test(arguments: StoreBackend.available) func logoutSelections(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let now = Date()
        let idle = now.addingTimeInterval(600)
        for (id, client, session) in [("a", "app", "s1"), ("b", "app", "s2"), ("c", "web", "s2"), ("d", "web", "s3")] {
            try await auth.createFamily(
                family(id, client: client, session: session), tokenHash: "h-\(id)", idleExpiry: idle)
            try await auth.recordAccessToken(familyID: id, jti: "jti-\(id)", expiresAt: now.addingTimeInterval(300))
        }
        try await auth.createFamily(family("bob", subject: "bob"), tokenHash: "h-bob", idleExpiry: idle)
        let session = try await auth.revokeFamilies(
            .session(tenantID: "acme", subject: "alice", sessionID: "s2"), now: now)
        #expect(Set(session.map(\.jti)) == ["jti-b", "jti-c"])
        let client = try await auth.revokeFamilies(
            .client(tenantID: "acme", subject: "alice", clientID: "web"), now: now)
        #expect(client.map(\.jti) == ["jti-d"])
        let everywhere = try await auth.revokeFamilies(.subject(tenantID: "acme", subject: "alice"), now: now)
        #expect(everywhere.map(\.jti) == ["jti-a"])
        #expect(try await auth.family(ofTokenHash: "h-bob")?.revoked == false)
        #expect(try await auth.revokeFamilies(.subject(tenantID: "beta", subject: "bob"), now: now).isEmpty)
    }

    /// Two instances with their own connections (two processes) present the same refresh
    /// token at once, 100 times: each time exactly one rotates it, and the other's attempt
    /// counts as reuse and revokes the family.
    @Test(arguments: StoreBackend.available) func oneWinnerAcrossProcesses(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let first = database.stores.auth
        let second = try await database.another().auth
        let now = Date()
        let idle = now.addingTimeInterval(600)
        var rotated = 0, reused = 0
        for round in 0 ..< 100 {
            try await first.createFamily(family("race-\(round)"), tokenHash: "t-\(round)", idleExpiry: idle)
            async let a = first.rotate(
                tokenHash: "t-\(round)", tenantID: "acme", clientID: "app", newHash: "a-\(round)", now: now,
                idleExpiry: idle)
            async let b = second.rotate(
                tokenHash: "t-\(round)", tenantID: "acme", clientID: "app", newHash: "b-\(round)", now: now,
                idleExpiry: idle)
            for outcome in try await [a, b] {
                switch outcome {
                case .rotated: rotated += 1
                case .reused: reused += 1
                case .invalid: Issue.record("round \(round): a presented active token was refused")
                }
            }
            #expect(try await first.family(ofTokenHash: "t-\(round)")?.revoked == true)
        }
        #expect(rotated == 100)
        #expect(reused == 100)
    }

    /// The one-auto-redirect rule holds under concurrent adds from separate instances: the
    /// store checks it inside the insert's transaction, so exactly one of them wins.
    @Test(arguments: StoreBackend.available) func oneAutoRedirectProviderUnderConcurrentAdds(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        var instances: [any AuthStore] = []
        for _ in 0..<6 { instances.append(try await database.another().auth) }
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (index, auth) in instances.enumerated() {
                group.addTask {
                    do {
                        try await auth.addIdentityProvider(
                            IdentityProvider(
                                tenantID: "acme", alias: "idp\(index)", issuer: "https://id\(index).example.com", clientID: "gw",
                                autoRedirect: true))
                        return true
                    } catch AuthStoreError.invalid {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await database.stores.auth.identityProviders(tenantID: "acme").filter(\.autoRedirect).count == 1)
        // Another tenant keeps its own.
        try await database.stores.auth.addIdentityProvider(
            IdentityProvider(tenantID: "beta", alias: "idp", issuer: "https://id.example.com", clientID: "gw", autoRedirect: true))
    }

    @Test(arguments: StoreBackend.available) func identityProvidersTrustedIssuersAndLinks(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let secret = "IDPSECRETMARKERZXCVBNMASDFGHJKL"
        let provider = IdentityProvider(
            tenantID: "acme", alias: "corp", displayName: "Corp", issuer: "https://id.example.com", clientID: "gw",
            clientSecret: SecretValue(secret), createdAt: StoreClock.date(StoreClock.milliseconds(Date())))
        try await auth.addIdentityProvider(provider)
        await #expect(throws: AuthStoreError.alreadyExists("identity provider corp")) {
            try await auth.addIdentityProvider(provider)
        }
        await #expect(throws: AuthStoreError.self) {
            try await auth.addIdentityProvider(
                IdentityProvider(tenantID: "acme", alias: "Bad Alias", issuer: "https://id.example.com", clientID: "gw")
            )
        }
        await #expect(throws: AuthStoreError.self) {
            try await auth.addIdentityProvider(
                IdentityProvider(tenantID: "acme", alias: "plain", issuer: "http://id.example.com", clientID: "gw"))
        }
        // Read back by another instance, secret opened; never in plaintext at rest.
        #expect(try await database.another().auth.identityProviders(tenantID: "acme") == [provider])
        #expect(try await auth.identityProviders(tenantID: "beta").isEmpty)
        #expect(try await database.bytesAtRest().range(of: Data(secret.utf8)) == nil)
        try await auth.removeIdentityProvider(tenantID: "acme", alias: "corp")
        await #expect(throws: AuthStoreError.notFound("identity provider corp")) {
            try await auth.removeIdentityProvider(tenantID: "acme", alias: "corp")
        }

        var trust = TrustedIssuer(
            tenantID: "acme", issuer: "https://id.example.com", audience: "api",
            createdAt: StoreClock.date(StoreClock.milliseconds(Date())))
        try await auth.trustIssuer(trust)
        trust.audience = "api-2"
        let introspectionSecret = "INTROSPECTMARKERPOIUYTREWQLKJH"
        trust.introspection = .init(clientID: "gw", clientSecret: SecretValue(introspectionSecret), cacheSeconds: 120)
        try await auth.trustIssuer(trust)
        #expect(try await database.another().auth.trustedIssuers(tenantID: "acme") == [trust])
        #expect(try await database.bytesAtRest().range(of: Data(introspectionSecret.utf8)) == nil)
        #expect(try await auth.trustedIssuers(tenantID: "beta").isEmpty)
        try await auth.untrustIssuer(tenantID: "acme", issuer: trust.issuer)
        await #expect(throws: AuthStoreError.notFound("trusted issuer https://id.example.com")) {
            try await auth.untrustIssuer(tenantID: "acme", issuer: trust.issuer)
        }

        let link = IdentityLink(
            tenantID: "acme", issuer: "https://id.example.com", externalSubject: "ext-1", subject: "sub-alice",
            createdAt: StoreClock.date(StoreClock.milliseconds(Date())))
        try await auth.addIdentityLink(link)
        await #expect(throws: AuthStoreError.self) { try await auth.addIdentityLink(link) }
        #expect(try await auth.identityLink(tenantID: "acme", issuer: link.issuer, externalSubject: "ext-1") == link)
        #expect(try await auth.identityLink(tenantID: "beta", issuer: link.issuer, externalSubject: "ext-1") == nil)
        #expect(try await database.another().auth.identityLinks(tenantID: "acme", subject: "sub-alice") == [link])
        try await auth.removeIdentityLink(tenantID: "acme", issuer: link.issuer, externalSubject: "ext-1")
        #expect(try await auth.identityLinks(tenantID: "acme", subject: "sub-alice").isEmpty)
        await #expect(throws: AuthStoreError.self) {
            try await auth.removeIdentityLink(tenantID: "acme", issuer: link.issuer, externalSubject: "ext-1")
        }
    }
}

extension AuthStoreContractTests {
    static func passkey(_ id: UInt8, subject: String = "alice", tenant: String = "acme", at: Date) -> StoredPasskey {
        StoredPasskey(
            tenantID: tenant, subject: subject, credentialID: [id, 0xFF, 0x00, id], publicKey: [0xA5, id],
            algorithm: -7, signCount: 5, backupEligible: true, backedUp: false, aaguid: [UInt8](repeating: id, count: 16),
            transports: ["internal", "hybrid"], name: "Phone \(id)", createdAt: at.addingTimeInterval(Double(id)))
    }

    static func trail(_ verb: AdminVerb, _ id: String, at: Date) -> AuditDraft {
        AuditDraft(
            time: at, actor: AuditActor(subject: "alice", name: "alice", roles: []), verb: verb,
            resource: AuditResource(type: .user, tenant: "acme", id: id), outcome: AuditOutcome(status: 200, code: nil))
    }

    @Test(arguments: StoreBackend.available) func passkeysKeepCountersAndBounds(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await auth.addPasskey(Self.passkey(2, at: now), trail: Self.trail(.create, "alice", at: now))
        try await auth.addPasskey(Self.passkey(1, at: now), trail: nil)
        try await auth.addPasskey(Self.passkey(3, subject: "bob", at: now), trail: nil)
        try await auth.addPasskey(Self.passkey(1, tenant: "other", at: now), trail: nil)
        // A credential ID is one passkey in a tenant, whoever registers it again.
        await #expect(throws: AuthStoreError.alreadyExists("passkey")) {
            try await auth.addPasskey(Self.passkey(1, subject: "bob", at: now), trail: Self.trail(.create, "bob", at: now))
        }
        let other = try await database.another().auth
        #expect(try await other.passkey(tenantID: "acme", credentialID: [1, 0xFF, 0x00, 1]) == Self.passkey(1, at: now))
        #expect(try await other.passkey(tenantID: "acme", credentialID: [9]) == nil)
        #expect(try await other.passkeys(tenantID: "acme", subject: "alice").map(\.name) == ["Phone 1", "Phone 2"])

        // A use moves the counter only from the value it was checked against.
        let id: [UInt8] = [2, 0xFF, 0x00, 2]
        let used = now.addingTimeInterval(60)
        #expect(try await auth.recordPasskeyUse(tenantID: "acme", credentialID: id, from: 5, to: 9, backedUp: true, at: used))
        #expect(try await !auth.recordPasskeyUse(tenantID: "acme", credentialID: id, from: 5, to: 7, backedUp: false, at: used))
        #expect(try await !auth.recordPasskeyUse(tenantID: "beta", credentialID: id, from: 9, to: 10, backedUp: true, at: used))
        let after = try #require(try await other.passkey(tenantID: "acme", credentialID: id))
        #expect(after.signCount == 9 && after.backedUp && after.lastUsedAt == used)

        try await auth.renamePasskey(
            tenantID: "acme", subject: "alice", credentialID: id, name: String(repeating: "n", count: 100),
            trail: Self.trail(.update, "alice", at: now))
        #expect(try await other.passkey(tenantID: "acme", credentialID: id)?.name.count == StoredPasskey.maximumNameLength)
        // Another user's passkey is not theirs to rename or remove.
        await #expect(throws: AuthStoreError.notFound("passkey")) {
            try await auth.renamePasskey(tenantID: "acme", subject: "bob", credentialID: id, name: "x", trail: nil)
        }
        await #expect(throws: AuthStoreError.notFound("passkey")) {
            try await auth.removePasskey(tenantID: "acme", subject: "bob", credentialID: id, trail: nil)
        }
        try await auth.removePasskey(tenantID: "acme", subject: "alice", credentialID: id, trail: Self.trail(.delete, "alice", at: now))
        #expect(try await other.passkeys(tenantID: "acme", subject: "alice").map(\.name) == ["Phone 1"])
        // Each change with a trail left one record; the refused one none.
        let records = try await database.stores.audit.records(matching: AuditQuery(limit: 10)).items
        #expect(records.map(\.verb) == [.delete, .update, .create], "\(records.map(\.verb))")

        // A user holds a bounded number of passkeys.
        for index in 0..<(StoredPasskey.maximumPerUser - 1) {
            try await auth.addPasskey(Self.passkey(UInt8(100 + index), subject: "carol", at: now), trail: nil)
        }
        try await auth.addPasskey(Self.passkey(99, subject: "carol", at: now), trail: nil)
        await #expect(throws: AuthStoreError.invalid("a user holds \(StoredPasskey.maximumPerUser) passkeys at most")) {
            try await auth.addPasskey(Self.passkey(98, subject: "carol", at: now), trail: nil)
        }
        #expect(try await other.passkeys(tenantID: "acme", subject: "carol").count == StoredPasskey.maximumPerUser)
    }

    @Test("a sign-up without a password: the account and its passkey in one transaction, or neither",
          arguments: StoreBackend.available)
    func anAccountWithItsPasskeyIsOneWrite(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let auth = database.stores.auth
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let userTrail: @Sendable (LocalUser) -> AuditDraft = { Self.trail(.create, $0.username, at: now) }
        let dana = LocalUser(tenantID: "acme", username: "dana", subject: "dana", passwordHash: "!")
        try await auth.addUser(
            dana, holding: Self.passkey(7, subject: "dana", at: now), userTrail: userTrail,
            passkeyTrail: Self.trail(.create, "dana", at: now))
        let other = try await database.another().auth
        #expect(try await other.user(tenantID: "acme", username: "dana")?.subject == "dana")
        #expect(try await other.passkeys(tenantID: "acme", subject: "dana").map(\.name) == ["Phone 7"])

        // The credential ID is taken: the account is not written either, nor any record.
        let erin = LocalUser(tenantID: "acme", username: "erin", subject: "erin", passwordHash: "!")
        await #expect(throws: AuthStoreError.alreadyExists("passkey")) {
            try await auth.addUser(
                erin, holding: Self.passkey(7, subject: "erin", at: now), userTrail: userTrail,
                passkeyTrail: Self.trail(.create, "erin", at: now))
        }
        #expect(try await other.user(tenantID: "acme", username: "erin") == nil)
        // The username is taken: the passkey is not written.
        await #expect(throws: AuthStoreError.alreadyExists("user dana")) {
            try await auth.addUser(
                LocalUser(tenantID: "acme", username: "dana", subject: "dana-2", passwordHash: "!"),
                holding: Self.passkey(8, subject: "dana-2", at: now), userTrail: userTrail, passkeyTrail: nil)
        }
        #expect(try await other.passkey(tenantID: "acme", credentialID: [8, 0xFF, 0x00, 8]) == nil)
        let records = try await database.stores.audit.records(matching: AuditQuery(limit: 10)).items
        #expect(records.count == 2, "\(records.map(\.resource.id))")
    }
}
