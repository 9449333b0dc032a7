import Foundation
import Testing

/// Every `gatewayctl …` command the docs, the README and both contracts name exists (issue 62
/// §3: docs/ciba.md and the contract named `gatewayctl trust add`, which never did).
@Suite("Documented gatewayctl commands")
struct DocumentedCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The command words after each `gatewayctl` inside backticks or a code block of `text`:
    /// up to two words (a group and its command), `a|b` alternatives spelled out.
    static func commands(in text: String) -> Set<[String]> {
        var found: Set<[String]> = []
        // After a backtick, or at a line's start (a code block), never in prose.
        let regex = try! NSRegularExpression(
            pattern: #"(?:^[ \t$>]*|`)gatewayctl((?: [a-z][a-z0-9-]*(?:\|[a-z][a-z0-9-]*)*){1,2})"#,
            options: .anchorsMatchLines)
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range(at: 1), in: text) else { continue }
            let words = text[range].split(separator: " ").map { $0.split(separator: "|").map(String.init) }
            guard let first = words.first else { continue }
            for group in first {
                guard words.count > 1 else {
                    found.insert([group])
                    continue
                }
                for command in words[1] { found.insert([group, command]) }
            }
        }
        return found
    }

    @Test("each documented command answers --help")
    func documentedCommandsExist() async throws {
        let harness = try CLIHarness()
        defer { harness.remove() }
        let folders = ["docs"].map { Self.root.appendingPathComponent($0) }
        var files = ["README.md", "OpenAPI/gateway.yaml", "OpenAPI/admin.yaml"].map { Self.root.appendingPathComponent($0) }
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".md") {
                files.append(folder.appendingPathComponent(name))
            }
        }
        var checked: Set<[String]> = []
        for file in files {
            for command in Self.commands(in: try String(contentsOf: file, encoding: .utf8)) where checked.insert(command).inserted {
                let place = "\(file.lastPathComponent): gatewayctl \(command.joined(separator: " "))"
                // ArgumentParser answers an unknown subcommand's --help with its parent's help:
                // the usage line says which command answered.
                let usage = { (output: String) in
                    output.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }.map(String.init) ?? ""
                }
                let result = await harness.run(command + ["--help"])
                if usage(result.output).hasPrefix("USAGE: gatewayctl \(command.joined(separator: " "))") { continue }
                // Two words where the second is an argument (`gatewayctl tenant show acme` is fine;
                // `gatewayctl login https://…` is not matched): the first is a command without subcommands.
                let group = command.count == 2 ? await harness.run([command[0], "--help"]) : result
                let groupUsage = usage(group.output)
                #expect(
                    groupUsage.hasPrefix("USAGE: gatewayctl \(command[0])") && !groupUsage.contains("<subcommand>"),
                    "\(place) does not exist")
            }
        }
        #expect(checked.count > 30)
        #expect(Self.commands(in: "a `gatewayctl trust add` b") == [["trust", "add"]])
        #expect(Self.commands(in: "`gatewayctl audit list|verify`") == [["audit", "list"], ["audit", "verify"]])
    }
}
