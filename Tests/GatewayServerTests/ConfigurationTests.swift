import GatewayServer
import Testing

@Suite("Gateway configuration")
struct ConfigurationTests {
    @Test("defaults are the embedded newcomer setup")
    func defaults() async throws {
        let configuration = try await GatewayConfiguration.load(arguments: ["gateway", "serve"], environment: [:])
        #expect(configuration == GatewayConfiguration())
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.databasePath == "./.gateway/gateway.sqlite")
        #expect(configuration.redisURL == nil)
        #expect(configuration.environment == .development)
    }

    @Test("flags beat GATEWAY_* environment, which beats defaults; foreign variables are ignored")
    func precedence() async throws {
        let configuration = try await GatewayConfiguration.load(
            arguments: ["gateway", "serve", "--http-port", "9001"],
            environment: [
                "GATEWAY_HTTP_PORT": "9000", "GATEWAY_REDIS_URL": "redis://127.0.0.1:6390/2", "HTTP_HOST": "0.0.0.0",
                "GATEWAY_LOG_FORMAT": "json",
            ]
        )
        #expect(configuration.port == 9001)
        #expect(configuration.redisURL == "redis://127.0.0.1:6390/2")
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.logFormat == .json)
    }

    @Test("unusable values are refused naming the setting", arguments: [
        ("GATEWAY_HTTP_PORT", "eighty"),
        ("GATEWAY_HTTP_PORT", "70000"),
        ("GATEWAY_REDIS_URL", "http://127.0.0.1:6379"),
        ("GATEWAY_PUBLIC_BASE_URL", "not a url"),
        ("GATEWAY_ENVIRONMENT", "staging"),
        ("GATEWAY_LOG_LEVEL", "loud"),
    ])
    func refusals(variable: String, value: String) async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await GatewayConfiguration.load(arguments: ["gateway"], environment: [variable: value])
        }
        #expect(error?.setting.environmentVariable == variable)
    }

    @Test("a missing config file is a clear error")
    func missingConfigFile() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await GatewayConfiguration.load(
                arguments: ["gateway", "--config-file", "/nonexistent/gw.json"], environment: [:])
        }
        #expect(error?.setting == .configFile)
    }
}
