import Foundation
import GatewayCore

/// The file `tenant export` writes and `tenant import` reads.
struct TenantExportFile: Codable {
    static let formatName = "superapp-gateway/tenants"

    var format: String?
    var formatVersion: Int?
    var exportedAt: Date?
    /// `sealed` (open only with the same master key) or `plaintext` (`--reveal`).
    var secrets: String?
    var tenants: [TenantDocument]
}
