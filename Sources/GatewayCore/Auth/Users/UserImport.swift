import Foundation
import NIOPosix

/// One user of an import: the fields `user list --json` prints, plus how the user signs in:
/// a `password` (hashed by the import), a `passwordHash` carried over from another gateway
/// (`scrypt$…`), or `upstreamOnly: true` (signs in only through an identity provider).
public struct UserImportEntry: Codable, Sendable, Equatable {
    /// Every field an entry may have (an unknown one is refused, not dropped).
    public static let fields: Set<String> = [
        "username", "subject", "name", "email", "picture", "disabled", "password", "passwordHash", "upstreamOnly",
        "totp",
    ]

    public var username: String
    public var subject: String?
    public var name: String?
    public var email: String?
    public var picture: String?
    public var disabled: Bool?
    public var password: String?
    public var passwordHash: String?
    public var upstreamOnly: Bool?
    /// `user list --json` prints it; only `false` is accepted (secrets are never exported).
    public var totp: Bool?

    public init(username: String, subject: String? = nil, password: String? = nil) {
        self.username = username
        self.subject = subject
        self.password = password
    }
}

/// A bulk import of a tenant's users, all or nothing (issue 48): the rules once, for
/// gatewayctl's database path and the admin API's import jobs. Every entry is checked and
/// every password hashed before anything is written; one transaction writes them all.
public enum UserImport {
    /// The most users one import takes.
    public static let maximumCount = 100_000

    /// How an entry signs in: a password to hash, or a hash to store as it is.
    public enum SignIn: Sendable, Equatable {
        case password(String)
        case stored(String)
    }

    /// Checks every entry: at least one and at most ``maximumCount``, no username or subject
    /// twice, usernames by the user rules, one way to sign in each, no TOTP secret. Throws
    /// ``UserAccountError/invalid(_:)`` naming the first bad entry (`users[3] (bob): …`).
    public static func check(_ entries: [UserImportEntry]) throws -> [SignIn] {
        guard !entries.isEmpty else { throw UserAccountError.invalid("the import holds no users") }
        guard entries.count <= maximumCount else {
            throw UserAccountError.invalid("an import takes at most \(maximumCount) users, got \(entries.count)")
        }
        if let repeated = entries.map(\.username).firstRepeated() {
            throw UserAccountError.invalid("user \(repeated.prefix(200)) appears twice")
        }
        if let repeated = entries.compactMap(\.subject).firstRepeated() {
            throw UserAccountError.invalid("subject \(repeated.prefix(255)) appears twice")
        }
        return try entries.enumerated().map { index, entry in
            do {
                return try signIn(entry)
            } catch UserAccountError.invalid(let reason) {
                throw UserAccountError.invalid("users[\(index)] (\(entry.username.prefix(200))): \(reason)")
            }
        }
    }

    private static func signIn(_ entry: UserImportEntry) throws -> SignIn {
        if let problem = LocalUser.usernameProblem(entry.username) { throw UserAccountError.invalid(problem) }
        if let subject = entry.subject, subject.isEmpty || subject.count > 255 {
            throw UserAccountError.invalid("subject must be 1-255 characters")
        }
        for (name, value, limit) in [
            ("name", entry.name, 200), ("email", entry.email, 320), ("picture", entry.picture, 2048),
        ]
        where (value?.unicodeScalars.count ?? 0) > limit {
            throw UserAccountError.invalid("\(name) must be at most \(limit) characters")
        }
        if entry.totp == true {
            throw UserAccountError.invalid(
                "TOTP secrets are not imported: give the user one with `user update --totp` afterwards")
        }
        switch (entry.password, entry.passwordHash, entry.upstreamOnly == true) {
        case (let password?, nil, false):
            guard LocalUser.passwordLengths.contains(password.count) else {
                throw UserAccountError.invalid(
                    "password must be \(LocalUser.passwordLengths.lowerBound)-\(LocalUser.passwordLengths.upperBound) characters"
                )
            }
            return .password(password)
        case (nil, let hash?, false):
            guard PasswordHasher.isWellFormed(hash) else {
                throw UserAccountError.invalid("passwordHash is not an scrypt$logN$r$p$salt$key hash")
            }
            return .stored(hash)
        case (nil, nil, true):
            return .stored(IdentityLinker.noPassword)
        default:
            throw UserAccountError.invalid(
                "give exactly one of password, passwordHash or upstreamOnly: true (`user list --json` carries no passwords)"
            )
        }
    }

    /// The stored hash of every entry, in order: passwords hashed `width` at a time on NIO's
    /// blocking pool (never the cooperative pool that serves requests); `progress(done)`
    /// after each hash.
    public static func hashes(
        _ signIns: [SignIn], hasher: PasswordHasher, width: Int, progress: @escaping @Sendable (Int) async -> Void
    ) async throws -> [String] {
        var hashes = [String](repeating: "", count: signIns.count)
        var pending: [(index: Int, password: String)] = []
        for (index, signIn) in signIns.enumerated() {
            switch signIn {
            case .stored(let hash): hashes[index] = hash
            case .password(let password): pending.append((index, password))
            }
        }
        var done = 0
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var next = pending.makeIterator()
            func addNext() {
                guard let item = next.next() else { return }
                group.addTask {
                    (item.index, try await NIOThreadPool.singleton.runIfActive { try hasher.hash(item.password) })
                }
            }
            for _ in 0..<max(1, width) { addNext() }
            while let (index, hash) = try await group.next() {
                hashes[index] = hash
                done += 1
                await progress(done)
                addNext()
            }
        }
        return hashes
    }

    /// The users to store: `entries` with their `hashes`, in `tenantID`, a new subject where
    /// an entry names none.
    public static func users(_ entries: [UserImportEntry], hashes: [String], tenantID: String) -> [LocalUser] {
        zip(entries, hashes).map { entry, hash in
            LocalUser(
                tenantID: tenantID, username: entry.username, subject: entry.subject ?? RandomUUID.lowercased(),
                name: entry.name, email: entry.email, picture: entry.picture, disabled: entry.disabled ?? false,
                passwordHash: hash)
        }
    }

    /// How many passwords `signIns` hash.
    public static func passwordCount(_ signIns: [SignIn]) -> Int {
        signIns.count { if case .password = $0 { true } else { false } }
    }
}
