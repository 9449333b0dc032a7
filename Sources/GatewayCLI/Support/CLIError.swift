/// Errors a command reports to the operator as one `error: ...` line.
enum CLIError: Error, CustomStringConvertible {
    /// Bad input (bad value, missing tenant, validation failure): exit code 2.
    case invalid(String)
    /// Something failed while doing valid work (I/O, keys): exit code 1.
    case failure(String)

    var description: String {
        switch self {
        case .invalid(let message), .failure(let message): message
        }
    }
}
