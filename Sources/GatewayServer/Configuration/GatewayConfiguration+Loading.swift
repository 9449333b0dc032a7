import Configuration
import Foundation
import GatewayCore
import GatewayPostgres
import Logging
import RedisClient
import SystemPackage

extension GatewayConfiguration {
    /// Resolves settings with precedence: command-line flags > `GATEWAY_*` environment >
    /// JSON config file (`--config-file`) > defaults.
    public static func load(arguments: [String], environment: [String: String]) async throws -> GatewayConfiguration {
        let flags = CommandLineArgumentsProvider(
            arguments: arguments,
            secretsSpecifier: .specific([GatewaySetting.masterKey.flag, GatewaySetting.databaseURL.flag]))
        let gatewayEnvironment = Dictionary(
            uniqueKeysWithValues: environment.compactMap { name, value in
                name.hasPrefix("GATEWAY_") ? (String(name.dropFirst("GATEWAY_".count)), value) : nil
            }
        )
        let variables = EnvironmentVariablesProvider(
            environmentVariables: gatewayEnvironment,
            secretsSpecifier: .specific(["MASTER_KEY", "DATABASE_URL"])
        )
        var providers: [any ConfigProvider] = [flags, variables]
        let early = ConfigReader(providers: providers)
        if let file = early.string(forKey: ["config", "file"]) {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file)))
            } catch {
                throw ConfigurationError(setting: .configFile, reason: "cannot read JSON config file \(file): \(error)")
            }
        }
        return try resolve(ConfigReader(providers: providers))
    }

    static func resolve(_ reader: ConfigReader) throws -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        func string(_ setting: GatewaySetting) -> String? {
            reader.string(
                forKey: ConfigKey(setting.key.split(separator: ".").map(String.init)), isSecret: setting.isSecret
            ).flatMap { $0.isEmpty ? nil : $0 }
        }
        func int(_ setting: GatewaySetting, in range: ClosedRange<Int>) throws -> Int? {
            guard let text = string(setting) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw ConfigurationError(
                    setting: setting,
                    reason: "expected a whole number in \(range.lowerBound)...\(range.upperBound), got \"\(text)\"")
            }
            return value
        }
        func choice<T: RawRepresentable>(_ setting: GatewaySetting, _: T.Type) throws -> T? where T.RawValue == String {
            guard let text = string(setting) else { return nil }
            guard let value = T(rawValue: text.lowercased()) else {
                throw ConfigurationError(setting: setting, reason: "unknown value \"\(text)\"")
            }
            return value
        }
        func pushEndpoint(_ setting: GatewaySetting, _ text: String) throws -> String {
            guard let url = URL(string: text), PushEndpoint.isAllowed(url), url.query == nil else {
                throw ConfigurationError(
                    setting: setting, reason: "must be an https URL (http only on a loopback host), got \"\(text)\"")
            }
            return text
        }

        if let host = string(.httpHost) { configuration.host = host }
        if let port = try int(.httpPort, in: 0...65_535) { configuration.port = port }
        if let host = string(.adminHost) { configuration.adminHost = host }
        if let port = try int(.adminPort, in: 0...65_535) { configuration.adminPort = port }
        if let days = try int(.auditRetentionDays, in: 0...36_500) {
            guard days == 0 || days >= 30 else {
                throw ConfigurationError(
                    setting: .auditRetentionDays, reason: "\(days) is too short (0 = forever, else 30-36500)")
            }
            configuration.auditRetentionDays = days
        }
        if let mode = try choice(.adminRequireTOTP, GatewayConfiguration.Switch.self) {
            configuration.adminRequireTOTP = mode == .on
        }
        for (setting, keyPath) in [
            (GatewaySetting.publicBaseURL, \GatewayConfiguration.publicBaseURL),
            (.adminPublicBaseURL, \.adminPublicBaseURL),
        ] {
            guard let url = string(setting) else { continue }
            guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https"].contains(scheme),
                parsed.host != nil
            else {
                throw ConfigurationError(setting: setting, reason: "must be an absolute http(s) URL, got \"\(url)\"")
            }
            configuration[keyPath: keyPath] = url
        }
        if let path = string(.databasePath) { configuration.databasePath = path }
        if let url = string(.databaseURL) {
            do {
                _ = try PostgresURL(url)
            } catch {
                throw ConfigurationError(setting: .databaseURL, reason: error.description)
            }
            configuration.databaseURL = url
        }
        if let url = string(.redisURL) {
            do {
                _ = try RedisConfiguration(url: url)
            } catch {
                throw ConfigurationError(setting: .redisURL, reason: error.description)
            }
            configuration.redisURL = url
        }
        configuration.masterKeyBase64 = string(.masterKey)
        configuration.masterKeyFile = string(.masterKeyFile)
        if let environment = try choice(.environment, Environment.self) { configuration.environment = environment }
        if let level = try choice(.logLevel, Logger.Level.self) { configuration.logLevel = level }
        if let format = try choice(.logFormat, LogFormat.self) { configuration.logFormat = format }
        if let milliseconds = try int(.tenantReloadInterval, in: 50...60_000) {
            configuration.tenantReloadInterval = .milliseconds(milliseconds)
        }
        if let seconds = try int(.jwksMaxAge, in: 0...86_400) { configuration.jwksMaxAge = .seconds(seconds) }
        if let seconds = try int(.cibaPollInterval, in: 1...60) { configuration.cibaPollInterval = seconds }
        if let devices = try int(.pushMaxDevicesPerUser, in: 1...1_000) { configuration.pushMaxDevicesPerUser = devices }
        if let url = string(.pushAPNsURL) { configuration.pushAPNsURL = try pushEndpoint(.pushAPNsURL, url) }
        if let url = string(.pushFCMURL) { configuration.pushFCMURL = try pushEndpoint(.pushFCMURL, url) }
        if let calls = try int(.pushConcurrency, in: 0...1_000) { configuration.pushConcurrency = calls }
        if let quota = try int(.pushSendQuota, in: 0...1_000_000) { configuration.pushSendQuotaPerMinute = quota }
        if let milliseconds = try int(.pushLease, in: 1_000...3_600_000) {
            configuration.pushLease = .milliseconds(milliseconds)
        }
        if let sends = try int(.courierConcurrency, in: 0...1_000) { configuration.courierConcurrency = sends }
        if let file = string(.courierCAFile) {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ConfigurationError(setting: .courierCAFile, reason: "cannot read \(file)")
            }
            configuration.courierCAFile = file
        }
        if let milliseconds = try int(.courierRetryBase, in: 100...600_000) {
            configuration.courierRetryBase = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.databaseTimeout, in: 1_000...600_000) {
            configuration.databaseTimeout = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.databaseProbe, in: 0...10_000) {
            guard milliseconds == 0 || milliseconds >= 100 else {
                throw ConfigurationError(
                    setting: .databaseProbe, reason: "expected 0 (no breaker) or 100...10000, got \"\(milliseconds)\"")
            }
            configuration.databaseProbeInterval = milliseconds == 0 ? nil : .milliseconds(milliseconds)
        }
        if let contacts = try int(.messagesMaxContacts, in: 1...100_000) {
            configuration.messaging.maxContacts = contacts
            configuration.bodyLimits.contacts = BodyLimits.contactsBytes(maxContacts: contacts)
        }
        if let days = try int(.messagesRetentionDays, in: 1...365) { configuration.messaging.retention = .seconds(days * 86_400) }
        if let count = try int(.messagesPerMinute, in: 0...1_000_000) { configuration.messaging.limits.perSenderPerMinute = count }
        if let count = try int(.messagesPerDay, in: 0...10_000_000) { configuration.messaging.limits.perSenderPerDay = count }
        if let count = try int(.messagesPerRecipientHour, in: 0...1_000_000) {
            configuration.messaging.limits.perRecipientPerHour = count
        }
        if let milliseconds = try int(.upstreamBudget, in: 50...120_000) {
            configuration.upstreamBudget = .milliseconds(milliseconds)
        }
        if let connections = try int(.upstreamConnections, in: 1...10_000) {
            configuration.upstreamConnectionsPerHost = connections
        }
        if let inFlight = try int(.upstreamMaxInFlight, in: 1...100_000) {
            configuration.upstreamGuards.maxInFlight = inFlight
        }
        if let percent = try int(.breakerFailureRatio, in: 1...100) {
            configuration.upstreamGuards.breaker.failureRatio = Double(percent) / 100
        }
        if let milliseconds = try int(.breakerOpenMilliseconds, in: 100...600_000) {
            configuration.upstreamGuards.breaker.openDuration = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.cacheNearMilliseconds, in: 0...60_000) {
            configuration.nearCacheLifetime = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.cacheStaleGraceMilliseconds, in: 0...60_000) {
            configuration.staleGrace = .milliseconds(milliseconds)
        }
        if let limit = try int(.rateLimitTenant, in: 0...10_000_000) { configuration.rateLimits.perTenant = limit }
        if let limit = try int(.rateLimitClient, in: 0...10_000_000) { configuration.rateLimits.perClient = limit }
        if let seconds = try int(.rateLimitWindow, in: 1...86_400) {
            configuration.rateLimits.window = .seconds(seconds)
        }
        if let milliseconds = try int(.shutdownDrain, in: 0...600_000) {
            configuration.shutdownDrain = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.shutdownTimeout, in: 1_000...3_600_000) {
            configuration.shutdownTimeout = .milliseconds(milliseconds)
        }
        if let tracing = try choice(.tracing, GatewayConfiguration.Tracing.self) { configuration.tracing = tracing }
        if let replica = string(.replicaID) {
            guard GatewayConfiguration.isValidReplicaID(replica) else {
                throw ConfigurationError(setting: .replicaID, reason: "must be 1-63 characters of A-Z a-z 0-9 . _ -")
            }
            configuration.replicaID = replica
        }
        if let milliseconds = try int(.headerTimeout, in: 100...600_000) {
            configuration.connectionLimits.headerTimeout = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.bodyTimeout, in: 100...3_600_000) {
            configuration.connectionLimits.bodyTimeout = .milliseconds(milliseconds)
        }
        if let milliseconds = try int(.idleTimeout, in: 100...3_600_000) {
            configuration.connectionLimits.idleTimeout = .milliseconds(milliseconds)
        }
        if let connections = try int(.maxConnections, in: 0...1_000_000) {
            configuration.connectionLimits.maxConnections = connections == 0 ? nil : connections
        }
        if let connections = try int(.maxConnectionsPerAddress, in: 0...1_000_000) {
            configuration.connectionLimits.maxConnectionsPerAddress = connections
        }
        if let requests = try int(.maxRequestsPerAddress, in: 0...1_000_000) {
            configuration.connectionLimits.maxRequestsPerAddress = requests
        }
        if let list = string(.trustedProxies) {
            do {
                configuration.proxies.trustedProxies = try TrustedProxies(parsing: list)
            } catch {
                throw ConfigurationError(
                    setting: .trustedProxies,
                    reason: "\"\(error.text)\" is not an IP address or CIDR block (e.g. 10.0.0.0/8, 2001:db8::/32)")
            }
        }
        if let mode = try choice(.proxyProtocol, GatewayConfiguration.Switch.self) {
            configuration.proxies.proxyProtocol = mode == .on
        }
        if let mode = try choice(.accessLog, GatewayConfiguration.Switch.self) { configuration.accessLog = mode == .on }
        if let mode = try choice(.edgeFastPath, GatewayConfiguration.Switch.self) { configuration.fastPath = mode == .on }
        if let bytes = try int(.maxFormBytes, in: 1024...1_048_576) { configuration.bodyLimits.form = bytes }
        if let bytes = try int(.maxJSONBytes, in: 1024...67_108_864) { configuration.bodyLimits.json = bytes }
        if let bytes = try int(.maxAnalyticsBytes, in: 1024...67_108_864) { configuration.bodyLimits.analytics = bytes }
        if let catalog = string(.demoCatalog) {
            configuration.demoCatalogPath = catalog.isEmpty ? nil : catalog
        }
        return configuration
    }
}
