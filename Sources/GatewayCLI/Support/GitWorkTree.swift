import Foundation

/// Finds the git work tree a file would land in, so commands writing secrets can warn.
enum GitWorkTree {
    /// The root of the work tree holding `path` (a folder with `.git` in it, the file or
    /// folder git makes), walking up from the file's folder; nil outside any.
    static func root(
        containing path: String, currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String? {
        var folder = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: currentDirectory, isDirectory: true))
            .standardizedFileURL.deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder.path }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }
}
