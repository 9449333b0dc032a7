extension StringProtocol where SubSequence == Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space). Header
    /// values are read on every request: no Foundation `trimmingCharacters`, which re-parses
    /// the string as UTF-16.
    var trimmingBlanks: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
