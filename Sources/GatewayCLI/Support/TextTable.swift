/// Left-aligned columns separated by two spaces; the header row is printed as given.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    /// The table as lines, trailing spaces trimmed.
    var lines: [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line +=
                    column == row.count - 1
                    ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }
            return line
        }
    }
}
