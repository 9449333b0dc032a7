/// A host-app version: one to four dot-separated numeric components of 1–6 ASCII digits
/// (`2`, `2.10`, `2.4.0.1`), the grammar `^[0-9]{1,6}(\.[0-9]{1,6}){0,3}$`.
///
/// Versions compare numerically, component by component, missing components counting
/// as 0: `2.10 > 2.9`, `2.1 == 2.1.0`, `02.1 == 2.1`.
public struct HostAppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The most components a version may have.
    public static let maxComponents = 4
    /// The most digits one component may have.
    public static let maxDigits = 6
    /// The grammar, as `OpenAPI/gateway.yaml` declares it.
    public static let pattern = #"^[0-9]{1,6}(\.[0-9]{1,6}){0,3}$"#

    /// The text the version was parsed from.
    public let text: String
    /// The numeric components without trailing zeros (`2.1.0` → `[2, 1]`), so equal
    /// versions have equal components.
    public let components: [Int]

    /// Parses `text`; nil when it does not follow the grammar.
    public init?(_ text: some StringProtocol) {
        var components: [Int] = []
        var current = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, components.count < Self.maxComponents - 1 else { return nil }
                components.append(current)
                current = 0
                digits = 0
            } else if ASCIIByte.isDigit(byte) {
                guard digits < Self.maxDigits else { return nil }
                current = current * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        components.append(current)
        while components.count > 1, components.last == 0 { components.removeLast() }
        self.text = String(text)
        self.components = components
    }

    public var description: String { text }

    /// Whether `text` follows the grammar.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        HostAppVersion(text) != nil
    }

    public static func == (lhs: HostAppVersion, rhs: HostAppVersion) -> Bool {
        lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(components)
    }

    public static func < (lhs: HostAppVersion, rhs: HostAppVersion) -> Bool {
        for index in 0 ..< max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
