// swift-tools-version: 6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "SuperAppGateway",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "gatewayctl", targets: ["gatewayctl"]),
        .library(name: "RedisClient", targets: ["RedisClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", "5.0.0"..<"7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        // OTLP/HTTP only: the gRPC exporter would add grpc-swift to every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
    ],
    targets: [
        // C bridge to libhiredis (RESP reader only).
        // No pkgConfig: hiredis.pc's -D_FILE_OFFSET_BITS=64 is a flag SwiftPM refuses with a
        // warning on every build; the headers are in the default include path.
        .systemLibrary(
            name: "CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // One SMTP message through libcurl (Debian's libcurl4-openssl-dev): the courier's e-mail
        // transport. C because libcurl's options are set through a variadic function.
        .target(
            name: "CCurlSMTP",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        // Child processes through posix_spawn (Foundation's Process over-reads /proc/self/fd on
        // Linux): gatewayctl's browser and the tests' servers.
        .target(name: "ProcessSpawn", swiftSettings: swiftSettings),
        // Async Redis client: SwiftNIO channel + hiredis reader. Knows nothing of the gateway.
        .target(
            name: "RedisClient",
            dependencies: [
                "CHiredis",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Types, server stubs and client generated from OpenAPI/gateway.yaml.
        .target(
            name: "GatewayAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Types, server stubs and client generated from OpenAPI/admin.yaml (the admin listener).
        .target(
            name: "AdminAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Types and client generated from OpenAPI/upstreams/provisioning.yaml (the provisioning contract the gateway defines).
        .target(
            name: "ProvisioningAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // The domain: tenancy, cache, secrets. No HTTP framework types in its public API.
        .target(
            name: "GatewayCore",
            dependencies: [
                "RedisClient",
                "ProvisioningAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: [.copy("Resources/localization-en.json")],
            swiftSettings: swiftSettings
        ),
        // Every durable store in one SQLite file (GRDB, WAL): the embedded default.
        .target(
            name: "GatewaySQLite",
            dependencies: [
                "GatewayCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Every durable store on PostgreSQL (postgres-nio), selected by GATEWAY_DATABASE_URL.
        .target(
            name: "GatewayPostgres",
            dependencies: [
                "GatewayCore",
                "GatewaySQLite",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Hummingbird application: routes, middlewares, error mapping, configuration.
        .target(
            name: "GatewayServer",
            dependencies: [
                "GatewayAPI",
                "AdminAPI",
                "GatewayCore",
                "GatewaySQLite",
                "GatewayPostgres",
                "RedisClient",
                "CCurlSMTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["OperationTablePlugin"]
        ),
        // gatewayctl commands as a library, so tests drive the same code paths.
        .target(
            name: "GatewayCLI",
            dependencies: [
                "AdminAPI",
                "ProcessSpawn",
                "GatewayCore",
                "GatewaySQLite",
                "GatewayPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `--wait-for`: polls a running gateway.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // `--server`: the admin API through its generated client.
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // `login`: the loopback listener that catches the sign-in's redirect (RFC 8252).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Reads OpenAPI/gateway.yaml at build time into GatewayServer's operation table.
        .executableTarget(name: "OperationTableGenerator", dependencies: [.product(name: "Yams", package: "Yams")], swiftSettings: swiftSettings),
        .plugin(name: "OperationTablePlugin", capability: .buildTool(), dependencies: ["OperationTableGenerator"]),
        .executableTarget(name: "gateway", dependencies: ["GatewayServer"], swiftSettings: swiftSettings),
        .executableTarget(name: "gatewayctl", dependencies: ["GatewayCLI"], swiftSettings: swiftSettings),
        // Benchmarks (`make bench`): print figures, never run by the test suite.
        .executableTarget(name: "bare-route", dependencies: [.product(name: "Hummingbird", package: "hummingbird")], path: "Benchmarks/bare-route", swiftSettings: swiftSettings),
        .executableTarget(name: "redis-bench", dependencies: ["RedisClient"], path: "Benchmarks/redis-bench", swiftSettings: swiftSettings),
        .executableTarget(name: "auth-bench", dependencies: ["GatewayCore", "GatewaySQLite", "RedisClient", .product(name: "Crypto", package: "swift-crypto")], path: "Benchmarks/auth-bench", swiftSettings: swiftSettings),
        .executableTarget(name: "token-http-bench", dependencies: ["GatewayCore", "GatewaySQLite", "GatewayPostgres", "RedisClient", .product(name: "Logging", package: "swift-log"), .product(name: "AsyncHTTPClient", package: "async-http-client")],
                          path: "Benchmarks/token-http-bench", swiftSettings: swiftSettings),
        .executableTarget(name: "store-bench", dependencies: ["GatewayCore", "GatewaySQLite", "GatewayPostgres"], path: "Benchmarks/store-bench", swiftSettings: swiftSettings),
        .executableTarget(
            name: "push-bench",
            dependencies: [
                "GatewayCore", "GatewaySQLite", "GatewayPostgres", .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/push-bench", swiftSettings: swiftSettings),

        // Helpers shared by the test targets (no tests of its own).
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "RedisClientTests",
            dependencies: ["RedisClient", "ProcessSpawn", .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: [
                "GatewayCore",
                "GatewaySQLite",
                "GatewayPostgres",
                "RedisClient",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayCLITests",
            dependencies: [
                "GatewayCLI", "GatewayCore", "GatewaySQLite", "GatewayPostgres", "ProcessSpawn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayServerTests",
            dependencies: [
                "GatewayServer", "GatewayCore", "GatewaySQLite", "GatewayAPI", "AdminAPI", "GatewayCLI", "GatewayPostgres",
                "ProcessSpawn", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
