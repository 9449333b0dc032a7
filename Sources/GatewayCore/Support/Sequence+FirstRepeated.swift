extension Sequence where Element: Hashable {
    /// The first element that came before (an id listed twice in an import); nil: none did.
    public func firstRepeated() -> Element? {
        var seen: Set<Element> = []
        return first { !seen.insert($0).inserted }
    }
}
