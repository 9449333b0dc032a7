import Foundation

/// Where a resolved ``MasterKey`` came from.
public enum MasterKeySource: Sendable, Equatable {
    /// Base64 text given directly (for example `GATEWAY_MASTER_KEY`).
    case base64
    /// An existing key file.
    case file(path: String)
    /// Development mode generated a new key file (warn loudly: losing it loses all secrets).
    case generated(path: String)
}

extension MasterKey {
    /// The file name of the development key, beside the database file.
    public static let developmentFileName = "master.key"

    /// Resolves the master key the gateway and gatewayctl share, in this order:
    /// 1. `base64` (env `GATEWAY_MASTER_KEY`): must decode to exactly 32 bytes;
    /// 2. `file` (env `GATEWAY_MASTER_KEY_FILE`): a file holding base64;
    /// 3. development mode only: `master.key` in the folder of `databasePath`, generated
    ///    (mode 0600) when absent, so both tools agree with zero configuration.
    /// Outside development mode, with neither 1 nor 2, throws ``MasterKeyError/missing``.
    /// Empty strings count as absent.
    public static func resolve(
        base64: String?,
        file: String?,
        databasePath: String,
        developmentMode: Bool
    ) throws -> (key: MasterKey, source: MasterKeySource) {
        if let base64, !base64.isEmpty {
            return (try MasterKey(base64: base64, source: "GATEWAY_MASTER_KEY"), .base64)
        }
        if let file, !file.isEmpty {
            return (try MasterKeyFile.read(path: file), .file(path: file))
        }
        guard developmentMode else { throw MasterKeyError.missing }
        let path = developmentKeyPath(databasePath: databasePath)
        let (key, created) = try MasterKeyFile.readOrCreate(path: path)
        return (key, created ? .generated(path: path) : .file(path: path))
    }

    /// `master.key` in the same folder as `databasePath`.
    public static func developmentKeyPath(databasePath: String) -> String {
        let folder = URL(fileURLWithPath: databasePath).deletingLastPathComponent()
        return folder.appendingPathComponent(developmentFileName).path
    }
}
