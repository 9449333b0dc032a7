/// A share of users from 0 to 100 % in hundredths of a percent (`12.34` → 1,234 basis points),
/// so assignment compares integers and `10.00` → `50.00` keeps the first cohort exactly.
public struct RolloutPercent: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Hundredths of a percent, 0 ... 10,000.
    public let basisPoints: Int

    /// Everyone.
    public static let all = RolloutPercent(uncheckedBasisPoints: 10_000)
    /// No one.
    public static let none = RolloutPercent(uncheckedBasisPoints: 0)

    /// nil outside 0 ... 10,000.
    public init?(basisPoints: Int) {
        guard (0...10_000).contains(basisPoints) else { return nil }
        self.basisPoints = basisPoints
    }

    private init(uncheckedBasisPoints: Int) { basisPoints = uncheckedBasisPoints }

    /// Parses `0`–`100` with at most two decimals (`12`, `12.5`, `12.34`); nil otherwise.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, (1...3).contains(whole.count), whole.utf8.allSatisfy(ASCIIByte.isDigit),
            let units = Int(whole)
        else { return nil }
        var hundredths = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...2).contains(fraction.count), fraction.utf8.allSatisfy(ASCIIByte.isDigit),
                let value = Int(fraction)
            else { return nil }
            hundredths = fraction.count == 1 ? value * 10 : value
        }
        self.init(basisPoints: units * 100 + hundredths)
    }

    /// `12.34`, `10`, `0.5`.
    public var description: String {
        let whole = basisPoints / 100
        let fraction = basisPoints % 100
        if fraction == 0 { return String(whole) }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    public static func < (a: RolloutPercent, b: RolloutPercent) -> Bool { a.basisPoints < b.basisPoints }

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(Int.self)
        guard let percent = RolloutPercent(basisPoints: value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "basis points out of 0...10000"))
        }
        self = percent
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(basisPoints)
    }
}
