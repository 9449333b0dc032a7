import Foundation
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// Every text a journey's screen can show exists in both built-in languages: the titles,
/// labels and actions of every step under every shape of settings, and every message key the
/// engine's sources name.
@Suite("Journey texts")
struct JourneyTextsTests {
    @Test("every title, label, action and message of the journeys has English and Japanese")
    func everyKeyWorded() throws {
        var keys: Set<String> = []
        let identifierSets: [[JourneySettings.Identifier]] = [
            [.username], [.email], [.phone], [.username, .email], [.username, .phone], [.email, .phone],
            [.phone, .email, .username],
        ]
        for identifiers in identifierSets {
            let settings = JourneySettings(signUp: true, identifiers: identifiers, recovery: [])
            for step in JourneyStep.allCases {
                let screen = step.screen(settings)
                keys.insert(screen.titleKey)
                keys.formUnion(screen.fields.map(\.labelKey))
                keys.formUnion(screen.actions.map { "journey.action.\($0.rawValue)" })
            }
        }
        keys.formUnion(JourneyScreen.Action.allCases.map { "journey.action.\($0.rawValue)" })
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Sources/GatewayCore/Auth/Journeys").standardized
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let pattern = try NSRegularExpression(pattern: #""(journey\.error\.[a-z-]+)""#)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                keys.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        #expect(keys.count >= 30 && keys.contains("journey.error.sign-ups"))
        for key in keys.sorted() {
            #expect(JourneyTexts.english[key] != nil, "no English text for \(key)")
            #expect(JourneyTexts.japanese[key] != nil, "no Japanese text for \(key)")
        }
        #expect(Set(JourneyTexts.english.keys) == Set(JourneyTexts.japanese.keys))
    }
}
