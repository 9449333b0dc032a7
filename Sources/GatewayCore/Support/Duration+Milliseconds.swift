extension Duration {
    /// Whole milliseconds, rounded toward zero (cache TTLs, cut-off instants, HTTP deadlines).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
