import Foundation
import GatewayCore

/// Enforces the constraints `OpenAPI/gateway.yaml` declares on inputs (the generated
/// server checks types, not patterns or ranges): a violation is 400 `invalid_request`.
enum RequestValidation {
    /// A mini-app or version id: it becomes a path segment of the platform's URL, so the
    /// dot segments `.` and `..` (any run of dots only) are refused.
    static func identifier(_ value: String, _ name: String) throws {
        guard isIdentifier(value) else {
            throw GatewayProblem.invalidRequest(
                "`\(name)` must be 1-128 characters of A-Z, a-z, 0-9, '.', '_' and '-', and not only dots.")
        }
    }

    /// Whether `value` is an identifier (see ``identifier(_:_:)``).
    static func isIdentifier(_ value: String) -> Bool {
        (1...128).contains(value.utf8.count)
            && value.utf8.allSatisfy({ ASCIIByte.isLetterOrDigit($0) || "._-".utf8.contains($0) })
            && value.utf8.contains(where: { $0 != UInt8(ascii: ".") })
    }

    /// A permission name (`PermissionName`): never a path segment, so dots alone are fine.
    static func permissionName(_ value: String) throws {
        guard (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ ASCIIByte.isLetterOrDigit($0) || "._-".utf8.contains($0) })
        else {
            throw GatewayProblem.invalidRequest(
                "`permissions[].name` must be 1-128 characters of A-Z, a-z, 0-9, '.', '_' and '-'.")
        }
    }

    /// The request's `Idempotency-Key` header as sent (the generated server percent-decodes
    /// it): 1-128 visible ASCII characters, or absent.
    static func idempotencyKey() throws -> String? {
        let key = RequestScope.header(.init("Idempotency-Key")!)
        if let key, !(1...128).contains(key.utf8.count) || !key.utf8.allSatisfy(ASCIIByte.isVisible) {
            throw GatewayProblem.invalidRequest("`Idempotency-Key` is 1-128 visible ASCII characters.")
        }
        return key
    }

    static func previewCode(_ value: String) throws {
        try opaqueID(value, "code")
    }

    /// An id the gateway or a platform made (preview codes, device and message ids): 1-64
    /// characters of A-Z, a-z, 0-9, '_' and '-'.
    static func opaqueID(_ value: String, _ name: String) throws {
        guard (1...64).contains(value.utf8.count),
              value.utf8.allSatisfy({ ASCIIByte.isLetterOrDigit($0) || "_-".utf8.contains($0) })
        else { throw GatewayProblem.invalidRequest("`\(name)` must be 1-64 characters of A-Z, a-z, 0-9, '_' and '-'.") }
    }

    static func language(_ value: String?) throws {
        guard let value else { return }
        guard value.utf8.count <= 35, matches(#"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$"#, value) else {
            throw GatewayProblem.invalidRequest("`lang` must be a language tag such as `en` or `ja-JP`.")
        }
    }

    /// nil, or a host-app version (`HostAppVersion`'s grammar, as the contract declares it).
    static func hostAppVersion(_ value: String?) throws -> HostAppVersion? {
        guard let value else { return nil }
        guard let version = HostAppVersion(value) else {
            throw GatewayProblem.invalidRequest(
                "`hostAppVersion` must be 1-4 dot-separated numbers of 1-6 digits, such as `2.4.0`.")
        }
        return version
    }

    static func range(_ value: Int?, _ range: ClosedRange<Int>, _ name: String) throws {
        guard let value else { return }
        guard range.contains(value) else {
            throw GatewayProblem.invalidRequest("`\(name)` must be in \(range.lowerBound)...\(range.upperBound).")
        }
    }

    /// Lengths in code points, as JSON Schema counts them.
    static func length(_ value: String?, _ range: ClosedRange<Int>, _ name: String) throws {
        guard let value else { return }
        guard range.contains(value.unicodeScalars.count) else {
            throw GatewayProblem.invalidRequest("`\(name)` must be \(range.lowerBound)-\(range.upperBound) characters.")
        }
    }

    /// The patterns of `OpenAPI/gateway.yaml`, matched against the WHOLE value.
    static let nearPattern =
        #"^-?(90(\.0{1,8})?|[1-8]?[0-9](\.[0-9]{1,8})?),-?(180(\.0{1,8})?|(1[0-7][0-9]|[1-9]?[0-9])(\.[0-9]{1,8})?)$"#

    /// `near=lat,lon` (+ `radius`, default 5000 m) → a location; `radius` alone is ignored.
    static func location(near: String?, radius: Int?) throws -> ProvisioningQuery.Location? {
        try range(radius, 1...1_000_000, "radius")
        guard let near else { return nil }
        let parts = near.split(separator: ",")
        guard near.count <= 40, matches(nearPattern, near), parts.count == 2,
              let lat = Double(parts[0]), let lon = Double(parts[1])
        else { throw GatewayProblem.invalidRequest("`near` must be `lat,lon` in decimal degrees.") }
        return .init(latitude: lat, longitude: lon, radiusMetres: Double(radius ?? 5000))
    }

    /// `filter` values: `field:operator:value[,value]` (the field may be percent-encoded, for
    /// names with `:`), or a JSON object `{"field": …, "operator": …, "value": …}` (or
    /// `"values": [...]` for `in`) for any field name. Fields are 1-64 characters of any
    /// UTF-8 but controls (GeneXus field names are free text, like `Field Name`).
    static func filters(_ values: [String]?) throws -> [ProvisioningFilter] {
        let values = values ?? []
        guard values.count <= 10 else { throw GatewayProblem.invalidRequest("At most 10 `filter` values.") }
        return try values.map { text in
            guard text.unicodeScalars.count <= 1000,
                let filter = text.hasPrefix("{") ? jsonFilter(text) : tripleFilter(text), filter.isWellFormed
            else {
                throw GatewayProblem.invalidRequest(
                    "`filter` must be `field:operator:value[,value]` or a JSON object {\"field\",\"operator\",\"value\"|\"values\"}: a field of 1-64 characters, "
                        + "values of 1-200, several values only with `in`.")
            }
            return filter
        }
    }

    private static func tripleFilter(_ text: String) -> ProvisioningFilter? {
        guard var filter = ProvisioningFilter(parsing: text) else { return nil }
        // A field that is no valid percent-encoding is taken as written.
        if filter.field.contains("%"), let decoded = filter.field.removingPercentEncoding {
            filter.field = decoded
        }
        return filter
    }

    private static func jsonFilter(_ text: String) -> ProvisioningFilter? {
        guard case .object(let object)? = try? JSONValue.decode(Data(text.utf8)),
            object.keys.allSatisfy({ ["field", "operator", "value", "values"].contains($0) }),
            let field = object["field"]?.stringValue,
            let op = object["operator"]?.stringValue.flatMap(ProvisioningFilter.Operator.init(rawValue:))
        else { return nil }
        let values: [String]
        switch (object["value"], object["values"]) {
        case (.string(let value)?, nil): values = [value]
        case (nil, .array(let list)?): values = list.compactMap(\.stringValue)
            guard values.count == list.count else { return nil }
        default: return nil
        }
        return ProvisioningFilter(field: field, op: op, values: values)
    }

    /// True when `pattern` matches all of `value` (not just up to a trailing newline).
    static func matches(_ pattern: String, _ value: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        let whole = NSRange(value.startIndex..., in: value)
        guard let match = regex.firstMatch(in: value, range: whole) else { return false }
        return match.range == whole
    }
}
