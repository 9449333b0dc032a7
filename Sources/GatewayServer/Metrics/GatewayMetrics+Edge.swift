import Prometheus

/// Instruments of the connection guard and client-address resolution.
extension GatewayMetrics {
    /// `gateway_http_connections_open` and `gateway_http_overload_state` (1 while overloaded).
    func observe(_ admission: ConnectionAdmission) {
        sampledGauge("gateway_http_connections_open", "Client connections held now.") { Double(admission.openCount) }
        sampledGauge(
            "gateway_http_overload_state",
            "1 while the server is overloaded (past 80 % of its connection cap, until under 70 %), else 0."
        ) {
            admission.isOverloaded ? 1 : 0
        }
    }

    /// Counts a connection closed at accept, by reason (`per_address`, `full`).
    func recordConnectionRefused(_ reason: ConnectionAdmission.Refusal) {
        increment(
            "gateway_http_connections_refused_total", "Client connections closed at once when accepted, by reason.",
            labels: [("reason", reason.rawValue)])
    }

    /// Counts a held connection closed to make room while overloaded, by reason (`idle`, `slow_head`).
    func recordConnectionShed(_ reason: ConnectionAdmission.ShedReason) {
        increment(
            "gateway_http_connections_shed_total",
            "Client connections closed to make room while overloaded, by reason.", labels: [("reason", reason.rawValue)]
        )
    }

    /// Counts a forwarding header from a trusted proxy that was not used (the peer was taken
    /// as the client), by header and reason.
    func recordClientAddressFallback(source: String, reason: String) {
        increment(
            "gateway_client_address_fallbacks_total",
            "Forwarding headers from trusted proxies that could not be used (the peer stayed the client), by header and reason.",
            labels: [("header", source), ("reason", reason)])
    }

    /// Counts PROXY protocol headers of trusted peers' connections by outcome (`accepted`,
    /// `absent`: plain HTTP, `invalid`).
    func recordProxyProtocol(_ outcome: ProxyProtocolHandler.Outcome) {
        increment(
            "gateway_proxy_protocol_headers_total", "PROXY protocol headers of trusted peers' connections, by outcome.",
            labels: [("outcome", outcome.rawValue)])
    }

    /// `gateway_http_fast_path_answers_total`: stored answers written on the event loop
    /// (``StoredAnswerFastPath``); also counted in the per-route request metrics.
    func fastPathAnswers() -> Prometheus.Counter {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "gateway_http_fast_path_answers_total",
                "Cache hits of the stored-answer reads answered on the event loop, below the request pipeline."))
    }
}
