import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func putMiniAppStorage(
        _ input: Operations.PutMiniAppStorage.Input
    ) async throws -> Operations.PutMiniAppStorage.Output {
        try RequestValidation.identifier(input.path.id, "id")
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let items = body.items.additionalProperties
        guard items.count <= 1_000 else { throw GatewayProblem.invalidRequest("`items` holds at most 1000 entries.") }
        for key in items.keys { try Self.storageKey(key) }
        let (owner, tenant, state) = try userStateContext(miniAppID: input.path.id)
        let size = try await state.storage.put(items, for: owner, in: tenant)
        return .ok(.init(body: .json(.init(used: size.used, max: size.max))))
    }

    func getMiniAppStorageItem(
        _ input: Operations.GetMiniAppStorageItem.Input
    ) async throws -> Operations.GetMiniAppStorageItem.Output {
        try RequestValidation.identifier(input.path.id, "id")
        try Self.storageKey(input.path.key)
        let (owner, _, state) = try userStateContext(miniAppID: input.path.id)
        let value = try await state.storage.value(forKey: input.path.key, of: owner)
        return .ok(.init(body: .json(.init(key: input.path.key, value: value))))
    }

    func deleteMiniAppStorageItems(
        _ input: Operations.DeleteMiniAppStorageItems.Input
    ) async throws -> Operations.DeleteMiniAppStorageItems.Output {
        try RequestValidation.identifier(input.path.id, "id")
        let keys = input.query.key
        guard (1...50).contains(keys.count) else {
            throw GatewayProblem.invalidRequest("`key` must be given 1-50 times.")
        }
        for key in keys { try Self.storageKey(key) }
        let (owner, tenant, state) = try userStateContext(miniAppID: input.path.id)
        let size = try await state.storage.delete(keys: keys, for: owner, in: tenant)
        return .ok(.init(body: .json(.init(used: size.used, max: size.max))))
    }

    func deleteAllMiniAppStorage(
        _ input: Operations.DeleteAllMiniAppStorage.Input
    ) async throws -> Operations.DeleteAllMiniAppStorage.Output {
        try RequestValidation.identifier(input.path.id, "id")
        let (owner, _, state) = try userStateContext(miniAppID: input.path.id)
        let deleted = try await state.storage.deleteAll(for: owner)
        return .ok(.init(body: .json(.init(deleted: deleted))))
    }

    func getMiniAppStorageSize(
        _ input: Operations.GetMiniAppStorageSize.Input
    ) async throws -> Operations.GetMiniAppStorageSize.Output {
        try RequestValidation.identifier(input.path.id, "id")
        let (owner, tenant, state) = try userStateContext(miniAppID: input.path.id)
        let size = try await state.storage.size(of: owner, in: tenant)
        return .ok(.init(body: .json(.init(used: size.used, max: size.max))))
    }

    /// The contract's `StorageKey`: 1-256 characters of A-Z, a-z, 0-9, '.', '_', ':' and '-'.
    static func storageKey(_ key: String) throws {
        guard (1...256).contains(key.utf8.count),
            key.utf8.allSatisfy({ ASCIIByte.isLetterOrDigit($0) || ".-_:".utf8.contains($0) })
        else {
            throw GatewayProblem.invalidRequest(
                "Storage keys are 1-256 characters of A-Z, a-z, 0-9, '.', '_', ':' and '-'.")
        }
    }
}
