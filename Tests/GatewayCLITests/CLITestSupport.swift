import Foundation
import GatewayCLI
import GatewayCore
import GatewaySQLite

/// One gatewayctl invocation's outcome.
struct CLIResult {
    var code: Int32
    var output: String
    var error: String

    /// The JSON on stdout.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }
}

/// A temp folder with a database path and a fixed master key, driving `Gatewayctl.run`.
struct CLIHarness {
    static let masterKey = Data(repeating: 9, count: 32).base64EncodedString()

    let folder: String
    var environment: [String: String]

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("gateway-cli-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        environment = [
            "GATEWAY_DATABASE_PATH": folder + "/db/gateway.sqlite",
            "GATEWAY_MASTER_KEY": Self.masterKey,
            "USER": "tester",
        ]
    }

    var databasePath: String { environment["GATEWAY_DATABASE_PATH"]! }
    var databaseExists: Bool { FileManager.default.fileExists(atPath: databasePath) }

    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func run(_ arguments: [String], stdin: String = "") async -> CLIResult {
        let output = CapturedOutput()
        let input = Data(stdin.utf8)
        let code = await Gatewayctl.run(
            arguments: arguments, environment: environment, standardInput: { input }, output: output)
        return CLIResult(code: code, output: output.output, error: output.error)
    }

    /// The store the CLI writes, opened directly, to check what is (not) written.
    func store() throws -> SQLiteTenantStore {
        try SQLiteTenantStore(path: databasePath, sealer: SecretSealer(masterKey: MasterKey(base64: Self.masterKey)))
    }

    static let fullCreate = [
        "tenant", "create", "acme",
        "--display-name", "Acme App",
        "--project-id", "proj-1",
        "--subscription-key", "ras-K1-SECRET-MARKER-a1b2",
        "--platform-url", "https://ras.example.com",
        "--preview-mode", "true",
        "--require-signature", "true",
        "--provisioning-url", "http://prov.example.com:8080",
        "--super-app-id", "super-1",
        "--super-app-version", "2.0",
        "--provisioning-api-key", "API-KEY-SECRET-c3d4",
        "--storage-max-bytes", "5000",
        "--cache-max-count", "10",
        "--cache-max-days", "7",
        "--primary-color", "#112233",
        "--secondary-color", "#445566",
        "--logo-url", "https://cdn.example.com/acme/logo.png",
        "--manifest-ttl", "11", "--catalog-ttl", "12", "--localization-ttl", "13", "--public-key-ttl", "14",
        "--host-min-version", "2.1", "--host-latest-version", "2.4.0", "--host-update-url",
        "https://apps.example.com/acme",
        "--flag", "beta.checkout=true", "--flag", "dark-mode=false",
        "--ciba-reveal-unknown-users", "true", "--ciba-recent-sign-in", "120", "--ciba-allow-private-endpoints", "true",
    ]
}
