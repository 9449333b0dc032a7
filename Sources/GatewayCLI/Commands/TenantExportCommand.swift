import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl tenant export [ids...] [--reveal] [--output FILE]`
struct TenantExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write tenants as JSON (secrets stay sealed unless --reveal).",
        discussion: """
            Without --reveal, secrets are written as {"sealed":"v1:..."}: only a database \
            using the same master key can import them. With --reveal they are written as \
            {"plaintext":"..."}; protect that file.
            """
    )

    @Argument(help: "Tenant ids to export (default: all).") var ids: [String] = []
    @Flag(help: "Write secrets in plaintext instead of sealed.") var reveal = false
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"))
    var output: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        for id in ids where !TenantID.isValid(id) {
            do { try TenantID.validate(id) } catch { throw ValidationError(error.flagMessage) }
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await StoreAccess.open(global, context: context)
        var tenants = try await access.store.allTenants()
        if !ids.isEmpty {
            for id in ids where !tenants.contains(where: { $0.id == id }) { throw TenantStoreError.notFound(id) }
            tenants = tenants.filter { ids.contains($0.id) }
        }
        let file = TenantExportFile(
            format: TenantExportFile.formatName, formatVersion: 1, exportedAt: Date(),
            secrets: reveal ? "plaintext" : "sealed",
            tenants: try tenants.map {
                try TenantDocument($0, secrets: reveal ? .plaintext : .sealed, sealer: access.sealer)
            }
        )
        let json = try JSONCoding.encodeString(file) + "\n"
        guard let output else {
            context.output.writeOutput(json)
            return
        }
        guard
            FileManager.default.createFile(
                atPath: output, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CLIError.failure("cannot write \(output)")
        }
        if !global.json { context.printError("exported \(tenants.count) tenant(s) to \(output)") }
        if let root = GitWorkTree.root(containing: output) {
            context.printError(
                "warning: \(output) is inside the git work tree \(root) and holds \(reveal ? "PLAINTEXT" : "sealed") secrets: "
                    + "write it elsewhere or make sure git ignores it")
        }
    }
}
