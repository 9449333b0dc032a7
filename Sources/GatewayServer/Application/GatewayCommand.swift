import Foundation
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle

/// `gateway serve [flags]`: the whole process, from configuration to graceful shutdown
/// on SIGTERM/SIGINT. Returns the exit code (2 for unusable configuration).
public enum GatewayCommand {
    public static func main(arguments: [String], environment: [String: String]) async -> Int32 {
        let verb = arguments.dropFirst().first
        if verb == nil || verb == "--help" || verb == "-h" || verb == "help" {
            print(usage)
            return verb == nil ? 2 : 0
        }
        guard verb == "serve" else {
            FileHandle.standardError.write(Data("error: unknown command '\(verb!)'; try `gateway serve --help`\n".utf8))
            return 2
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let configuration: GatewayConfiguration
        do {
            configuration = try await GatewayConfiguration.load(arguments: arguments, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 2
        }
        LoggingSystem.bootstrap { label in
            LineLogHandler(
                label: label, level: configuration.logLevel, format: configuration.logFormat,
                replica: configuration.replicaID)
        }
        let logger = Logger(label: "gateway")
        let metrics = GatewayMetrics(replica: configuration.replicaID)
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
        do {
            let tracing =
                try configuration.tracing == .otlp ? OTelTracing.make(replicaID: configuration.replicaID) : nil
            let bootstrap = try await GatewayBootstrap.start(
                configuration: configuration, metrics: metrics, tracer: tracing?.tracer, logger: logger)
            let app = try GatewayApplication.make(
                host: configuration.host,
                port: configuration.port,
                services: bootstrap.services,
                backgroundServices: bootstrap.backgroundServices,
                limits: configuration.connectionLimits,
                proxies: configuration.proxies,
                fastPath: configuration.fastPath,
                logger: logger
            )
            let admin = try adminService(configuration, bootstrap: bootstrap, metrics: metrics, logger: logger)
            // SIGTERM/SIGINT: the drain service hears it first (readiness 503, still serving
            // for the drain delay), then the application (stop accepting, finish in-flight
            // requests, close pools), all within the shutdown timeout.
            var groupConfiguration = ServiceGroupConfiguration(
                // The span exporter stops last (services stop in reverse order), flushing what the server traced.
                services: (tracing.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0.service)] } ?? [])
                    + [.init(service: app)]
                    + (admin.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0)] } ?? [])
                    + [
                        .init(
                            service: DrainService(
                                state: bootstrap.drain, delay: configuration.shutdownDrain, logger: logger)),
                    ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
            groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownTimeout
            try await ServiceGroup(configuration: groupConfiguration).run()
            logger.notice("gateway stopped cleanly")
            return 0
        } catch {
            logger.critical("gateway stopped: \(startupFailure(error, configuration: configuration))")
            return 1
        }
    }

    /// The admin listener when `--admin-port` is set (issue 48).
    static func adminService(
        _ configuration: GatewayConfiguration, bootstrap: GatewayBootstrap, metrics: GatewayMetrics, logger: Logger
    ) throws -> (any Service)? {
        guard let port = configuration.adminPort else { return nil }
        return try AdminApplication.make(
            host: configuration.adminHost, port: port,
            services: .init(
                stores: bootstrap.stores, metrics: metrics, clock: bootstrap.services.clock,
                cache: bootstrap.services.cache, requireSecondFactor: configuration.adminRequireTOTP,
                publicBaseURL: configuration.adminPublicBaseURL),
            logger: logger,
            onServerRunning: { bound in
                logger.notice("admin listener on \(configuration.adminHost):\(bound)")
            })
    }

    /// What to tell the operator about a failure to start: a taken port gets its address
    /// and how to pick another, not NIO's `bind(descriptor:ptr:bytes:)` text.
    static func startupFailure(_ error: any Error, configuration: GatewayConfiguration) -> String {
        if let io = error as? IOError, io.errnoCode == EADDRINUSE {
            return "cannot listen on \(configuration.host):\(configuration.port): the address is already in use. "
                + "Stop what holds it, or choose another port with \(GatewaySetting.httpPort.flag) / \(GatewaySetting.httpPort.environmentVariable)."
        }
        return "\(error)"
    }

    static var usage: String {
        let rows = GatewaySetting.all.map { setting in
            let flag = setting.flag.padding(toLength: 22, withPad: " ", startingAt: 0)
            let variable = setting.environmentVariable.padding(toLength: 28, withPad: " ", startingAt: 0)
            let fallback = setting.defaultValue.map { " (default: \($0))" } ?? ""
            return "  \(flag)\(variable)\(setting.summary)\(fallback)"
        }
        return """
            USAGE: gateway serve [options]

            SuperApp Gateway: multi-tenant backend-for-frontend for mobile super apps.
            Precedence: flags > GATEWAY_* environment > --config-file JSON > defaults.

            OPTIONS (flag, environment variable, meaning):
            \(rows.joined(separator: "\n"))
            """
    }
}
