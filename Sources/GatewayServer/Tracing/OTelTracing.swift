import OTel
import ServiceLifecycle
import Tracing

/// The OpenTelemetry tracer of `GATEWAY_TRACING=otlp`: spans batched and exported over
/// OTLP/HTTP (protobuf) to `OTEL_EXPORTER_OTLP_ENDPOINT` (default http://localhost:4318),
/// W3C trace context propagation, parent-based sampling (`OTEL_TRACES_SAMPLER` and the other
/// standard `OTEL_*` variables apply). Logs and metrics stay with the gateway's own backends.
enum OTelTracing {
    /// The tracer, and the service that exports its spans (run it; it flushes on shutdown).
    static func make(replicaID: String) throws -> (tracer: any Tracer, service: any Service) {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "superapp-gateway"
        configuration.resourceAttributes["service.instance.id"] = replicaID
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.propagators = [.traceContext]
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return (backend.factory, backend.service)
    }
}
