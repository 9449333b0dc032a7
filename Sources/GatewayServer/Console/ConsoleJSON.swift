import Foundation
import GatewayCore

/// JSON documents as operators read them on a page: dotted paths and their values.
enum ConsoleJSON {
    /// A JSON document as dotted paths and their values, in key order.
    static func flatten(_ value: JSONValue, prefix: String = "") -> [(key: String, value: String)] {
        switch value {
        case .object(let fields):
            // A masked secret reads as one value: what is left of it, marked as masked.
            if fields.count == 1, case .string(let rest)? = fields["masked"] { return [(prefix, "•••• \(rest)")] }
            return fields.keys.sorted().flatMap { key in
                flatten(fields[key]!, prefix: prefix.isEmpty ? key : prefix + "." + key)
            }
        case .array(let items):
            let scalars = items.allSatisfy { if case .object = $0 { false } else { true } }
            if scalars { return [(prefix, items.map(scalar).joined(separator: ", "))] }
            return items.enumerated().flatMap { flatten($1, prefix: "\(prefix)[\($0)]") }
        default:
            return [(prefix, scalar(value))]
        }
    }

    static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .null: "-"
        default: (try? value.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }
}
