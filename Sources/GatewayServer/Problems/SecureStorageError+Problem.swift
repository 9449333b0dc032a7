import GatewayCore

extension SecureStorageError: ProblemConvertible {
    /// 413 `storage_full`, 404 `not_found`, 422 for the rest.
    var problem: GatewayProblem {
        switch self {
        case .storageFull: GatewayProblem(status: 413, code: code, title: "Storage full", detail: description)
        case .notFound: GatewayProblem(status: 404, code: code, title: "Not found", detail: description)
        case .invalidKey, .valueTooLarge, .tooManyItems:
            GatewayProblem(status: 422, code: code, title: "Invalid storage request", detail: description)
        }
    }
}
