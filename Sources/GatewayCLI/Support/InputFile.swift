import Foundation

/// Files commands read: a path, or `-` for standard input.
enum InputFile {
    /// The bytes of `path` (standard input for `-`); exit 2 naming the file when it cannot be read.
    static func read(_ path: String, context: CLIContext) throws -> Data {
        if path == "-" { return try context.standardInput() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.invalid("cannot read \(path): \(error.localizedDescription)")
        }
    }
}
