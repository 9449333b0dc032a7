import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// One POST to a provider (push, SMS) through ``UpstreamHTTP`` (HTTP/2 where the server offers it over
/// TLS, as APNs requires), bounded by a timeout, answering every status with its body.
struct ProviderHTTP: Sendable {
    /// The status, headers and (bounded) body of an answer.
    struct Exchange: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        /// The body as a JSON object, when it is one.
        var json: [String: JSONValue]? {
            if case .object(let fields)? = try? JSONValue.decode(Data(body)) { fields } else { nil }
        }
    }

    /// Why no answer came.
    struct TransportFailure: Error, Sendable {
        let reason: String
    }

    let client: HTTPClient
    let timeout: Duration
    /// The most body bytes read from an answer.
    static let maxAnswerBytes = 65_536

    func post(_ url: String, headers: [(String, String)], body: [UInt8]) async throws -> Exchange {
        do {
            let (status, reply) = try await UpstreamHTTP(client: client).exchange(
                .POST, url, headers: headers, body: body, maxBytes: Self.maxAnswerBytes,
                deadline: ContinuousClock.now + timeout)
            return Exchange(status: status, headers: reply.headers, body: reply.body)
        } catch let error as UpstreamError {
            switch error {
            case .timeout: throw TransportFailure(reason: "timeout")
            case .malformed: throw TransportFailure(reason: "answer_too_large")
            default: throw TransportFailure(reason: "connection")
            }
        }
    }

    /// `Retry-After` as a duration: delta-seconds or an HTTP date (RFC 9110 §10.2.3); nil when
    /// absent or unreadable, never negative, at most a day.
    static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(min(seconds, 86_400)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(min(max(0, Int(date.timeIntervalSince(now).rounded(.up))), 86_400))
    }
}
