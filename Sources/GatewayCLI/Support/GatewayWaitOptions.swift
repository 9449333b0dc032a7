import ArgumentParser
import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore

/// `--wait-for URL`: after a change, wait until a running gateway serves it.
///
/// A gateway picks up changes within about a second (it polls the database's change
/// counter); scripts that use the tenant right after creating or changing it wait here
/// instead of guessing a sleep. It polls `GET URL/t/<id>/v1/host-config` until the answer's
/// `configVersion` reaches the written one.
struct GatewayWaitOptions: ParsableArguments {
    @Option(
        name: .customLong("wait-for"),
        help: ArgumentHelp(
            "After the change, wait until the gateway at this base URL (e.g. http://127.0.0.1:8080) serves it.",
            valueName: "url"))
    var gatewayURL: String?

    @Option(
        name: .customLong("wait-timeout"),
        help: ArgumentHelp("How long --wait-for waits, in seconds (1-600, default 30).", valueName: "seconds"))
    var timeoutSeconds = 30

    func validate() throws {
        if let gatewayURL {
            guard let url = URLComponents(string: gatewayURL), ["http", "https"].contains(url.scheme ?? ""),
                url.host?.isEmpty == false,
                url.query == nil, url.fragment == nil
            else {
                throw ValidationError(
                    "--wait-for must be the gateway's base URL, http(s)://host[:port], got '\(gatewayURL)'")
            }
        }
        guard (1...600).contains(timeoutSeconds) else { throw ValidationError("--wait-timeout must be 1-600 seconds") }
    }

    /// Waits until the gateway serves `tenant` at its `configVersion` (nothing without `--wait-for`).
    func wait(for tenant: Tenant, context: CLIContext) async throws {
        guard let gatewayURL else { return }
        let base = gatewayURL.hasSuffix("/") ? String(gatewayURL.dropLast()) : gatewayURL
        let url = "\(base)/t/\(tenant.id)/v1/host-config"
        let started = ContinuousClock.now
        let deadline = started + .seconds(timeoutSeconds)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let outcome: Result<Void, any Error>
        do {
            try await poll(
                url, base: base, tenant: tenant, client: client, started: started, deadline: deadline, context: context)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        try outcome.get()
    }

    private func poll(_ url: String, base: String, tenant: Tenant, client: HTTPClient, started: ContinuousClock.Instant,
                      deadline: ContinuousClock.Instant, context: CLIContext) async throws {
        var last = "no answer"
        while true {
            // AsyncHTTPClient retries a refused connection until the request's deadline: at
            // most a second per look, and never past the wait's own deadline.
            let remaining = deadline - ContinuousClock.now
            switch await Self.probe(url, client: client, timeout: min(.seconds(1), max(remaining, .milliseconds(100))))
            {
            case .served(let version) where version >= tenant.configVersion:
                context.printError(
                    "the gateway at \(base) serves tenant \(tenant.id) at configVersion \(tenant.configVersion) "
                        + "(after \((ContinuousClock.now - started).formattedSeconds) s)")
                return
            case .served(let version):
                last = "it still serves configVersion \(version)"
            case .other(let what):
                last = what
            }
            guard ContinuousClock.now + .milliseconds(200) < deadline else { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw CLIError.failure(
            "the gateway at \(base) did not serve configVersion \(tenant.configVersion) of tenant \(tenant.id) "
                + "within \(timeoutSeconds) s (\(last)); is it reading the same database?")
    }

    /// What one look at the tenant's host config saw.
    private enum Probe {
        case served(configVersion: Int64)
        case other(String)
    }

    private static func probe(_ url: String, client: HTTPClient, timeout: Duration) async -> Probe {
        do {
            let response = try await client.execute(
                HTTPClientRequest(url: url), timeout: .milliseconds(timeout.wholeMilliseconds))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { return .other("it answers \(response.status.code)") }
            guard
                let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any],
                let version = (object["configVersion"] as? NSNumber)?.int64Value
            else { return .other("its answer has no configVersion") }
            return .served(configVersion: version)
        } catch {
            return .other("cannot reach it: \(error)")
        }
    }
}
