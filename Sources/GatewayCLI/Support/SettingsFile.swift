import Foundation

/// A JSON settings file a flag names (`--journeys-file`, `--courier-file`): at most 64 KiB, one
/// object whose members (and the members of its nested objects) are all known, so a misspelt
/// member is refused rather than ignored. Errors name the flag.
enum SettingsFile {
    /// The file's object decoded as `type`. `known` names the members allowed at the top,
    /// `nested` those allowed inside each object member; `hint` says what values are accepted.
    static func read<Settings: Decodable>(
        _ type: Settings.Type, file: String, flag: String, known: Set<String>, nested: [String: Set<String>] = [:],
        hint: String
    ) throws -> Settings {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CLIError.invalid("\(flag): cannot read \(file)")
        }
        guard data.count <= 64 * 1024,
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { throw CLIError.invalid("\(flag): \(file) is not a JSON object (at most 64 KiB)") }
        try refuseUnknown(object, known: known, flag: flag, path: "")
        for (member, allowed) in nested {
            guard let inner = object[member] else { continue }
            guard let inner = inner as? [String: Any] else { throw CLIError.invalid("\(flag): \(member) must be an object") }
            try refuseUnknown(inner, known: allowed, flag: flag, path: member + ".")
        }
        do {
            return try JSONDecoder().decode(Settings.self, from: data)
        } catch {
            throw CLIError.invalid("\(flag): \(hint)")
        }
    }

    private static func refuseUnknown(_ object: [String: Any], known: Set<String>, flag: String, path: String) throws {
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw CLIError.invalid(
                "\(flag): \(path)\(unknown) is not a setting (\(known.sorted().map { path + $0 }.joined(separator: ", ")))")
        }
    }
}
