import Foundation
import ProcessSpawn

/// Debian's nginx as the load balancer in front of test replicas: round-robin, and an
/// idempotent request that meets a refused connection or a 502/503/504 is tried on the next
/// replica (what a production proxy does during a rolling restart).
final class NginxProcess: Sendable {
    let base: String
    private let process: SpawnedProcess

    private init(base: String, process: SpawnedProcess) {
        self.base = base
        self.process = process
    }

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    /// Starts nginx on a free port with its configuration, pid and temporary files in `folder`.
    static func start(upstreams: [String], folder: URL) async throws -> NginxProcess {
        let port = try freeTCPPort()
        let servers = upstreams.compactMap { URL(string: $0) }.map {
            "    server \($0.host!):\($0.port!) max_fails=1 fail_timeout=1s;"
        }.joined(separator: "\n")
        let site = """
          upstream gateway {
        \(servers)
          }
          server {
            listen 127.0.0.1:\(port);
            location / {
              proxy_pass http://gateway;
              proxy_http_version 1.1;
              proxy_next_upstream error timeout http_502 http_503 http_504;
              proxy_next_upstream_tries 3;
              proxy_connect_timeout 1s;
              proxy_read_timeout 10s;
            }
          }
        """
        return try await start(site: site, port: port, folder: folder)
    }

    /// Starts nginx with the repository's `Deploy/nginx/gateway.conf` as it ships, its
    /// upstream servers and listen address pointed at `upstreams` and a free port.
    static func startShipped(upstreams: [String], folder: URL) async throws -> NginxProcess {
        let port = try freeTCPPort()
        var site = try String(contentsOf: RepositoryFile.url("Deploy/nginx/gateway.conf"), encoding: .utf8)
        let shippedServers = site.split(separator: "\n").filter {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("server gateway-")
        }
        guard !shippedServers.isEmpty, site.contains("listen 80;") else {
            throw ClusterTests.ClusterError.notUp("Deploy/nginx/gateway.conf changed shape")
        }
        site = site.replacingOccurrences(
            of: shippedServers[0],
            with: upstreams.compactMap { URL(string: $0) }.map { "    server \($0.host!):\($0.port!);" }.joined(
                separator: "\n"))
        for line in shippedServers.dropFirst() { site = site.replacingOccurrences(of: line + "\n", with: "") }
        site = site.replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(port);")
        return try await start(site: site, port: port, folder: folder)
    }

    private static func start(site: String, port: Int, folder: URL) async throws -> NginxProcess {
        let path = folder.path
        let configuration = """
        worker_processes 1;
        pid \(path)/nginx.pid;
        error_log \(path)/nginx-error.log warn;
        daemon off;
        events { worker_connections 1024; }
        http {
          access_log off;
          client_body_temp_path \(path)/nginx-body;
          proxy_temp_path \(path)/nginx-proxy;
          fastcgi_temp_path \(path)/nginx-fastcgi;
          uwsgi_temp_path \(path)/nginx-uwsgi;
          scgi_temp_path \(path)/nginx-scgi;
        \(site)
        }

        """
        let file = folder.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/sbin/nginx"), ["-e", "\(path)/nginx-error.log", "-p", path, "-c", file.path],
            environment: [:])
        let nginx = NginxProcess(base: "http://127.0.0.1:\(port)", process: process)
        let up = await eventually(within: .seconds(10)) {
            (try? await TestHTTP.noRedirects.get(url: "\(nginx.base)/healthz").get().status == .ok) ?? false
        }
        guard up else {
            nginx.stop()
            throw ClusterTests.ClusterError.notUp(
                "nginx: \((try? String(contentsOfFile: "\(path)/nginx-error.log", encoding: .utf8)) ?? "")")
        }
        return nginx
    }

    func stop() {
        process.kill()
    }
}
