import Foundation

/// The entries of a bulk import file: a JSON array of objects, as the matching `list --json`
/// prints it. A field the entry type does not know is refused (a misspelt key would
/// otherwise be dropped without a word), and so is a file over ``maximumCount`` entries.
enum ImportEntries {
    static let maximumCount = 100_000

    /// The entries of `file` (`-`: standard input): at least one, and no id (`id`) twice;
    /// `noun` names one entry in errors (`client`, `user`).
    static func load<Entry: Decodable & ImportEntry>(
        _ type: Entry.Type, file: String, context: CLIContext, noun: String, id: (Entry) -> String
    ) throws -> [Entry] {
        let entries = try decode(type, from: InputFile.read(file, context: context), file: file, name: noun + "s")
        guard !entries.isEmpty else { throw CLIError.invalid("\(file) holds no \(noun)s") }
        if let repeated = entries.map(id).firstRepeated() {
            throw CLIError.invalid("\(noun) \(repeated) appears twice in \(file)")
        }
        return entries
    }

    /// Decodes `data` as an array of `Entry`; `name` (`clients`, `users`) names entries in errors.
    static func decode<Entry: Decodable & ImportEntry>(
        _ type: Entry.Type, from data: Data, file: String, name: String
    ) throws -> [Entry] {
        guard let objects = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
            throw CLIError.invalid(
                "\(file) is not a JSON array of \(name) (as `\(name.dropLast()) list --json` prints)")
        }
        guard objects.count <= maximumCount else {
            throw CLIError.invalid("\(file) holds \(objects.count) \(name); import at most \(maximumCount) per file")
        }
        for (index, object) in objects.enumerated() {
            guard let fields = object as? [String: Any] else {
                throw CLIError.invalid("\(name)[\(index)]: expected an object")
            }
            if let unknown = fields.keys.filter({ !Entry.fields.contains($0) }).sorted().first {
                throw CLIError.invalid(
                    "\(name)[\(index)]: unknown field \"\(unknown)\" (known: \(Entry.fields.sorted().joined(separator: ", ")))"
                )
            }
        }
        do {
            return try JSONCoding.decoder().decode([Entry].self, from: data)
        } catch {
            throw CLIError.invalid("\(file): \(name)\(JSONCoding.describe(error))")
        }
    }

    /// The first value of `keys` that appears twice, for "appears twice" errors.
}

/// An entry of an import file: the JSON fields it may carry.
protocol ImportEntry {
    static var fields: Set<String> { get }
}
