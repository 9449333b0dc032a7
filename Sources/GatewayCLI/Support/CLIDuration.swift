/// A duration on the command line: a whole number with a unit, `s`, `m`, `h` or `d` (`90s`,
/// `15m`, `2h`, `1d`), or `0`.
enum CLIDuration {
    static let unitSeconds: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]

    /// Seconds of `text`; nil when it is no such duration (or longer than a year).
    static func seconds(_ text: String) -> Int? {
        if text == "0" { return 0 }
        guard let unit = text.last, let scale = unitSeconds[unit], let amount = Int(text.dropLast()), amount >= 0,
            amount <= 366 * 86_400 / scale
        else { return nil }
        return amount * scale
    }
}
