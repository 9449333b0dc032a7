import Foundation
import GatewayCore

/// Enforces the constraints `OpenAPI/gateway.yaml` declares on inputs (the generated
/// server checks types, not patterns or ranges): a violation is 400 `invalid_request`.
enum RequestValidation {
    static func identifier(_ value: String, _ name: String) throws {
        guard (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { throw GatewayProblem.invalidRequest("`\(name)` must be 1-128 characters of A-Z, a-z, 0-9, '.', '_' and '-'.") }
    }

    static func previewCode(_ value: String) throws {
        guard (1...64).contains(value.utf8.count),
              value.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { throw GatewayProblem.invalidRequest("`code` must be 1-64 characters of A-Z, a-z, 0-9, '_' and '-'.") }
    }

    static func language(_ value: String?) throws {
        guard let value else { return }
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        let valid = value.utf8.count <= 35 && (2...3).contains(parts[0].count) && parts[0].allSatisfy(\.isASCIILetterOrDigitLetter)
            && parts.count <= 4 && parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        guard valid else { throw GatewayProblem.invalidRequest("`lang` must be a language tag such as `en` or `ja-JP`.") }
    }

    static func range(_ value: Int?, _ range: ClosedRange<Int>, _ name: String) throws {
        guard let value else { return }
        guard range.contains(value) else { throw GatewayProblem.invalidRequest("`\(name)` must be in \(range.lowerBound)...\(range.upperBound).") }
    }

    static func length(_ value: String?, _ range: ClosedRange<Int>, _ name: String) throws {
        guard let value else { return }
        guard range.contains(value.count) else { throw GatewayProblem.invalidRequest("`\(name)` must be \(range.lowerBound)-\(range.upperBound) characters.") }
    }

    /// `near=lat,lon` + `radius` → a location; both or neither.
    static func location(near: String?, radius: Int?) throws -> ProvisioningQuery.Location? {
        guard let near else {
            if radius != nil { throw GatewayProblem.invalidRequest("`radius` needs `near`.") }
            return nil
        }
        let parts = near.split(separator: ",", omittingEmptySubsequences: false)
        guard near.count <= 40, parts.count == 2, parts.allSatisfy(isDecimal),
              let lat = Double(parts[0]), let lon = Double(parts[1]), (-90...90).contains(lat), (-180...180).contains(lon)
        else { throw GatewayProblem.invalidRequest("`near` must be `lat,lon` in decimal degrees.") }
        guard let radius else { throw GatewayProblem.invalidRequest("`near` needs `radius` (metres).") }
        try range(radius, 1...1_000_000, "radius")
        return .init(latitude: lat, longitude: lon, radiusMetres: Double(radius))
    }

    static func filters(_ values: [String]?) throws -> [ProvisioningFilter] {
        let values = values ?? []
        guard values.count <= 10 else { throw GatewayProblem.invalidRequest("At most 10 `filter` values.") }
        return try values.map { text in
            let fieldOK = text.split(separator: ":", maxSplits: 1).first.map { field in
                (1...64).contains(field.count) && field.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
            } ?? false
            guard text.count <= 200, fieldOK, let filter = ProvisioningFilter(parsing: text) else {
                throw GatewayProblem.invalidRequest("`filter` must be `field:operator:value[,value]`.")
            }
            return filter
        }
    }

    private static func isDecimal(_ text: Substring) -> Bool {
        let body = text.hasPrefix("-") ? text.dropFirst() : text
        let pieces = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), (1...3).contains(pieces[0].count) else { return false }
        if pieces.count == 2, !(1...8).contains(pieces[1].count) { return false }
        return pieces.allSatisfy { $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

private extension Character {
    var isASCIILetterOrDigitLetter: Bool { isASCII && isLetter }
}
