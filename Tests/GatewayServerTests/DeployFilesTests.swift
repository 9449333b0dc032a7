import Foundation
import GatewayServer
import RedisClient
import Testing
import Yams

/// Deploy/ files are not run here (no Docker engine), so they are parsed and checked:
/// every `GATEWAY_*` variable they set must be one the configuration loader knows.
@Suite("Deploy files")
struct DeployFilesTests {
    static let known = Set(GatewaySetting.all.map(\.environmentVariable))

    @Test(
        "docker-compose.yml: two replicas behind nginx on PostgreSQL and Redis with three sentinels, every reference resolved, only known GATEWAY_* variables"
    )
    func compose() throws {
        let document = try #require(
            try Yams.load(yaml: RepositoryFile.text("Deploy/docker-compose.yml")) as? [String: Any])
        let services = try #require(document["services"] as? [String: [String: Any]])
        let volumes = Set((document["volumes"] as? [String: Any] ?? [:]).keys)
        for name in [
            "postgres", "redis-primary", "redis-replica", "sentinel-1", "sentinel-2", "sentinel-3", "migrate",
            "gateway-1", "gateway-2", "nginx",
        ] {
            #expect(services[name] != nil, "no service \(name)")
        }
        // What `docker compose config` resolves: dependencies, named volumes, mounted files.
        for (name, service) in services {
            #expect(service["image"] != nil || service["build"] != nil, "\(name) has no image")
            let dependencies =
                (service["depends_on"] as? [String: Any]).map { Array($0.keys) }
                ?? (service["depends_on"] as? [String] ?? [])
            for dependency in dependencies {
                #expect(services[dependency] != nil, "\(name) depends on unknown service \(dependency)")
            }
            for mount in service["volumes"] as? [String] ?? [] {
                let source = String(mount.split(separator: ":")[0])
                if source.hasPrefix("./") {
                    #expect(
                        FileManager.default.fileExists(
                            atPath: RepositoryFile.url("Deploy/" + source.dropFirst(2)).path),
                        "\(name) mounts missing \(source)")
                } else {
                    #expect(volumes.contains(source), "\(name) mounts undeclared volume \(source)")
                }
            }
            let environment = service["environment"] as? [String: Any] ?? [:]
            try expectKnown(environment.keys, in: "docker-compose.yml (\(name))")
        }
        for name in ["gateway-1", "gateway-2"] {
            let environment = try #require(services[name]?["environment"] as? [String: Any])
            #expect(
                (environment["GATEWAY_DATABASE_URL"] as? String)?.hasPrefix("postgres://gateway:${POSTGRES_PASSWORD")
                    == true)
            #expect(
                environment["GATEWAY_REDIS_URL"] as? String
                    == "redis-sentinel://sentinel-1:26379,sentinel-2:26379,sentinel-3:26379/gateway/0")
            #expect(
                try RedisConfiguration(url: environment["GATEWAY_REDIS_URL"] as? String ?? "").sentinel?.masterName
                    == "gateway")
            #expect(
                (services[name]?["depends_on"] as? [String: [String: String]])?["migrate"]?["condition"]
                    == "service_completed_successfully")
        }
        // The URL the gateways get parses, and names the master the sentinels watch.
        let sentinelConfig = try RepositoryFile.text("Deploy/redis/sentinel.conf")
        #expect(sentinelConfig.contains("sentinel monitor gateway redis-primary 6379 2"))
        let nginx = try RepositoryFile.text("Deploy/nginx/gateway.conf")
        #expect(nginx.contains("server gateway-1:8080") && nginx.contains("server gateway-2:8080"))
    }

    @Test(
        "Kustomize overlays: dev has one replica and the in-cluster Redis; prod has a pinned image, Sentinel+TLS Redis in the Secret and no in-cluster Redis"
    )
    func kustomizeOverlays() async throws {
        func render(_ overlay: String) async throws -> [[String: Any]] {
            let result = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", RepositoryFile.url("scripts/kustomize-render.py").path,
                    RepositoryFile.url("Deploy/kubernetes/overlays/" + overlay).path,
                ], environment: ProcessInfo.processInfo.environment)
            try #require(result.status == 0, "\(overlay): \(result.output)")
            return try Array(Yams.load_all(yaml: result.output)).compactMap { $0 as? [String: Any] }
        }
        func find(_ documents: [[String: Any]], _ kind: String, _ name: String) -> [String: Any]? {
            documents.first {
                $0["kind"] as? String == kind && ($0["metadata"] as? [String: Any])?["name"] as? String == name
            }
        }
        let dev = try await render("dev")
        #expect((find(dev, "Deployment", "superapp-gateway")?["spec"] as? [String: Any])?["replicas"] as? Int == 1)
        #expect(find(dev, "Deployment", "superapp-redis") != nil)
        let prod = try await render("prod")
        #expect(find(prod, "Deployment", "superapp-redis") == nil && find(prod, "Service", "superapp-redis") == nil)
        let configMap = try #require(find(prod, "ConfigMap", "superapp-gateway")?["data"] as? [String: Any])
        #expect(configMap["GATEWAY_REDIS_URL"] == nil, "a Redis URL with a password belongs in the Secret")
        let secret = try #require(find(prod, "Secret", "superapp-gateway")?["stringData"] as? [String: Any])
        let redisURL = try #require(secret["GATEWAY_REDIS_URL"] as? String)
        #expect(redisURL.hasPrefix("rediss-sentinel://"))
        #expect(try RedisConfiguration(url: redisURL).sentinel?.sentinels.count == 3)
        let text = try Yams.dump(object: prod)
        #expect(
            text.contains("registry.example.com/superapp-gateway:1.0.0") && !text.contains("superapp-gateway:latest"))
        for documents in [dev, prod] {
            let variables = documents.filter { ["ConfigMap", "Secret"].contains($0["kind"] as? String) }
                .flatMap { (($0["data"] as? [String: Any]) ?? ($0["stringData"] as? [String: Any]) ?? [:]).keys }
            try expectKnown(variables, in: "a Kustomize overlay")
        }
    }

    @Test(
        "Grafana dashboard: valid JSON, unique panel ids, every query on a metric the gateway exports, filtered by replica"
    )
    func grafanaDashboard() throws {
        let data = try Data(contentsOf: RepositoryFile.url("Deploy/grafana/gateway-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        #expect(panels.count >= 10)
        let ids = panels.compactMap { $0["id"] as? Int }
        #expect(Set(ids).count == panels.count, "panel ids must be unique")
        let expressions = panels.flatMap {
            ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
        #expect(expressions.count >= panels.count)
        // The metric names the gateway's sources declare (string literals).
        var exported = Set<String>()
        let sources = RepositoryFile.url("Sources")
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /"(gateway_[a-z_]+)"/) { exported.insert(String(match.1)) }
        }
        for expression in expressions {
            #expect(expression.contains("replica=~\"$replica\""), "not filtered by replica: \(expression)")
            for match in expression.matches(of: /gateway_[a-z_]+/) {
                let name = String(match.0).replacing(/_(bucket|count|sum)$/, with: "")
                #expect(exported.contains(name), "the dashboard queries \(name), which the gateway does not export")
            }
        }
    }

    @Test("Dockerfile is multi-stage, runs as non-root, has a healthcheck and known variables")
    func dockerfile() throws {
        let text = try RepositoryFile.text("Deploy/Dockerfile")
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.filter { $0.hasPrefix("FROM ") }.count >= 2)
        #expect(lines.contains { $0.hasPrefix("USER ") && !$0.hasSuffix("root") })
        #expect(lines.contains { $0.hasPrefix("HEALTHCHECK") })
        #expect(text.contains("libhiredis"))
        #expect(text.contains("libsqlite3"))
        let variables = Self.gatewayVariables(in: text)
        #expect(!variables.isEmpty)
        try expectKnown(variables, in: "Dockerfile")
    }

    @Test(
        "Kubernetes: three stateless replicas on PostgreSQL, drained on shutdown, with a PDB, an HPA, a NetworkPolicy and a migration Job"
    )
    func kubernetesReplicas() throws {
        let documents = try Array(Yams.load_all(yaml: RepositoryFile.text("Deploy/kubernetes/gateway.yaml"))).compactMap
        { $0 as? [String: Any] }
        func document(_ kind: String) -> [String: Any]? { documents.first { $0["kind"] as? String == kind } }
        #expect(document("PersistentVolumeClaim") == nil, "replicas keep nothing on the pod")
        let spec = try #require(document("Deployment")?["spec"] as? [String: Any])
        #expect((spec["replicas"] as? Int ?? 0) >= 3)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["volumes"].map { "\($0)" }?.contains("persistentVolumeClaim") != true)
        #expect(
            (pod["terminationGracePeriodSeconds"] as? Int ?? 0) > 35,
            "grace period shorter than drain + shutdown timeout")
        let secret = try #require(document("Secret")?["stringData"] as? [String: Any])
        #expect((secret["GATEWAY_DATABASE_URL"] as? String)?.hasPrefix("postgres://") == true)
        let config = try #require(document("ConfigMap")?["data"] as? [String: Any])
        #expect(config["GATEWAY_DATABASE_PATH"] == nil)
        #expect(Int(config["GATEWAY_SHUTDOWN_DRAIN_MS"] as? String ?? "0") ?? 0 > 0)
        for kind in ["PodDisruptionBudget", "HorizontalPodAutoscaler", "NetworkPolicy", "Service"] {
            #expect(document(kind) != nil, "no \(kind)")
        }
        let job = try #require(
            try Yams.load(yaml: RepositoryFile.text("Deploy/kubernetes/migration.yaml")) as? [String: Any])
        #expect(job["kind"] as? String == "Job")
        #expect("\(job)".contains("migrate"))
    }

    @Test("example env file and Kubernetes manifests set only known variables")
    func envAndKubernetes() throws {
        let env = try RepositoryFile.text("Deploy/gateway.env.example")
        let envNames = env.split(separator: "\n")
            .filter { !$0.hasPrefix("#") && $0.contains("=") }
            .map { String($0.split(separator: "=", maxSplits: 1)[0]) }
        #expect(!envNames.isEmpty)
        try expectKnown(envNames, in: "gateway.env.example")

        for file in [
            "Deploy/kubernetes/gateway.yaml", "Deploy/kubernetes/redis.yaml", "Deploy/kubernetes/migration.yaml",
        ] {
            let documents = try Array(Yams.load_all(yaml: RepositoryFile.text(file)))
            #expect(!documents.isEmpty)
            for case let document as [String: Any] in documents {
                #expect(document["kind"] is String, "every manifest in \(file) names its kind")
                if let data = document["data"] as? [String: Any] { try expectKnown(data.keys, in: file) }
                if let data = document["stringData"] as? [String: Any] { try expectKnown(data.keys, in: file) }
            }
        }
    }

    @Test("the example JSON config loads through the real loader")
    func exampleConfig() async throws {
        let path = RepositoryFile.url("Deploy/config.example.json").path
        let configuration = try await GatewayConfiguration.load(
            arguments: ["gateway", "--config-file", path], environment: [:])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.redisURL == "redis://redis:6379/0")
        #expect(configuration.environment == .production)
        #expect(configuration.logFormat == .json)
    }

    @Test("docs/configuration.md documents every setting")
    func documentationListsSettings() throws {
        let page = try RepositoryFile.text("docs/configuration.md")
        for setting in GatewaySetting.all {
            #expect(
                page.contains(setting.environmentVariable),
                "docs/configuration.md misses \(setting.environmentVariable)")
            #expect(page.contains(setting.flag), "docs/configuration.md misses \(setting.flag)")
        }
    }

    static func gatewayVariables(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "GATEWAY_[A-Z0-9_]+")
        let range = NSRange(text.startIndex..., in: text)
        return pattern.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }

    private func expectKnown(_ names: some Sequence<String>, in file: String) throws {
        for name in names where name.hasPrefix("GATEWAY_") {
            #expect(Self.known.contains(name), "\(file) sets \(name), which the gateway does not read")
        }
    }
}
