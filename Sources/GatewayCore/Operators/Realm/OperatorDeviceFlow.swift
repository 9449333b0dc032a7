import Foundation

/// A device authorization of the operator realm (RFC 8628) while it lasts: kept in the
/// cache every replica shares (Redis when configured), like pushed authorization requests,
/// for its ten minutes; approved by a person on the admin listener's device page.
struct OperatorDeviceAuthorization: Codable, Sendable {
    var userCode: String
    var clientID: String
    var expiresAt: Date
    /// Seconds a client waits between polls; a faster poll adds 5 (`slow_down`).
    var interval: Int
    var lastPollAt: Date?
    /// Set when a person approved it: who, how, and until when the sign-in lasts.
    var operatorID: String?
    var method: String?
    var sessionExpiresAt: Date?

    static func key(deviceHash: String) -> String { "operator:device:" + deviceHash }
    static func key(userCode: String) -> String { "operator:device-user:" + userCode }

    /// The cache lifetime left at `now` (at least a second).
    func ttl(at now: Date) -> Duration {
        .seconds(max(1, Int64(expiresAt.timeIntervalSince(now).rounded(.up))))
    }

    static func read(_ cache: any Cache, deviceHash: String) async throws -> OperatorDeviceAuthorization? {
        guard let bytes = try await cache.get(key(deviceHash: deviceHash)) else { return nil }
        return try? JSONDecoder().decode(OperatorDeviceAuthorization.self, from: Data(bytes))
    }

    func write(_ cache: any Cache, deviceHash: String, now: Date) async throws {
        try await cache.set(Self.key(deviceHash: deviceHash), Array(try JSONEncoder().encode(self)), ttl: ttl(at: now))
    }
}

/// What the device authorization endpoint answers (RFC 8628 §3.2).
public struct OperatorDeviceStart: Sendable {
    public var deviceCode: String
    /// `XXXX-XXXX` of consonants (RFC 8628 §6.1: no vowels, no look-alikes).
    public var userCode: String
    public var expiresIn: Int
    public var interval: Int
}

/// What became of a person's approval on the device page.
public enum OperatorDeviceApproval: Sendable, Equatable {
    case approved
    /// No pending authorization has this user code (mistyped, expired, or approved already).
    case unknownCode
    /// The credentials were refused (the sign-in page's outcomes).
    case refused(OperatorSignInOutcome)
}

/// The device authorization grant's side of the sign-in (RFC 8628 §3.1-3.3).
extension OperatorSignIn {
    /// How long a device authorization waits for its person.
    public static let deviceLifetime = 600
    /// The first polling interval, in seconds.
    public static let deviceInterval = 5
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// Starts a device authorization for the built-in client `clientID`.
    public func startDeviceAuthorization(clientID: String?) async throws -> OperatorDeviceStart {
        guard let client = OperatorRealmClient.named(clientID) else { throw OperatorTokenError.invalidClient }
        let now = clock.now()
        let deviceCode = Base64URL.random(byteCount: 32)
        var userCode = ""
        // 20^8 codes; a clash with a pending one is drawn again.
        for _ in 0..<5 {
            let letters = (0..<8).map { _ in Self.userCodeAlphabet.randomElement()! }
            userCode = String(letters[0..<4]) + "-" + String(letters[4...])
            if try await cache.setIfAbsent(
                OperatorDeviceAuthorization.key(userCode: userCode), Array(ClientSecret.hash(deviceCode).utf8),
                ttl: .seconds(Int64(Self.deviceLifetime)))
            {
                let pending = OperatorDeviceAuthorization(
                    userCode: userCode, clientID: client.id,
                    expiresAt: now.addingTimeInterval(TimeInterval(Self.deviceLifetime)), interval: Self.deviceInterval)
                try await pending.write(cache, deviceHash: ClientSecret.hash(deviceCode), now: now)
                return OperatorDeviceStart(
                    deviceCode: deviceCode, userCode: userCode, expiresIn: Self.deviceLifetime,
                    interval: Self.deviceInterval)
            }
        }
        throw OperatorTokenError.invalidRequest("no free user code; try again")
    }

    /// `text` as a user code (`bcdf ghjk`, `BCDF-GHJK` → `BCDF-GHJK`); nil: not one.
    public static func normalizedUserCode(_ text: String) -> String? {
        let letters = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8, letters.allSatisfy(userCodeAlphabet.contains) else { return nil }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    /// A person approves the pending authorization of `userCode` with their credentials.
    public func approveDevice(
        userCode text: String, username: String, password: String, code: String?, address: String?
    ) async throws -> OperatorDeviceApproval {
        guard let userCode = Self.normalizedUserCode(text),
            let hashBytes = try await cache.get(OperatorDeviceAuthorization.key(userCode: userCode))
        else { return .unknownCode }
        let deviceHash = String(decoding: hashBytes, as: UTF8.self)
        let now = clock.now()
        guard var pending = try await OperatorDeviceAuthorization.read(cache, deviceHash: deviceHash),
            pending.operatorID == nil, pending.expiresAt > now
        else { return .unknownCode }
        switch try await authenticate(username: username, password: password, code: code, address: address) {
        case .refused(let outcome):
            return .refused(outcome)
        case .person(let person, let method):
            // The code is used: it cannot be approved again (by another person, or twice).
            guard try await cache.delete([OperatorDeviceAuthorization.key(userCode: userCode)]) == 1 else {
                return .unknownCode
            }
            pending.operatorID = person.id
            pending.method = method
            pending.sessionExpiresAt = sessionEnd(from: now)
            try await pending.write(cache, deviceHash: deviceHash, now: now)
            return .approved
        }
    }
}
