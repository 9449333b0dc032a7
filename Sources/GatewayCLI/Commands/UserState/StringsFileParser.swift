/// Parses Apple `.strings` files: `"key" = "value";` pairs, `/* */` and `//` comments,
/// escapes `\"`, `\\`, `\n`, `\t`, `\r`, `\UXXXX`.
enum StringsFileParser {
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    static func parse(_ text: String) throws -> [(key: String, value: String)] {
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var index = 0
        var line = 1
        var pairs: [(key: String, value: String)] = []

        func peek(_ offset: Int = 0) -> Unicode.Scalar? { index + offset < chars.count ? chars[index + offset] : nil }
        func skipTrivia() throws {
            while let c = peek() {
                if c == "\n" {
                    line += 1
                    index += 1
                } else if c.properties.isWhitespace {
                    index += 1
                } else if c == "/", peek(1) == "*" {
                    index += 2
                    while peek() != nil, !(peek() == "*" && peek(1) == "/") {
                        if peek() == "\n" { line += 1 }
                        index += 1
                    }
                    guard peek() != nil else { throw Failure(line: line, reason: "unterminated comment") }
                    index += 2
                } else if c == "/", peek(1) == "/" {
                    while let d = peek(), d != "\n" { index += 1 }
                } else { return }
            }
        }
        func expect(_ s: Unicode.Scalar) throws {
            try skipTrivia()
            guard peek() == s else { throw Failure(line: line, reason: "expected '\(s)'") }
            index += 1
        }
        func quoted() throws -> String {
            try expect("\"")
            var out = String.UnicodeScalarView()
            while let c = peek() {
                index += 1
                if c == "\"" { return String(out) }
                if c == "\n" { line += 1 }
                guard c == "\\" else { out.append(c); continue }
                guard let e = peek() else { break }
                index += 1
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "U", "u":
                    let hex = String(String.UnicodeScalarView(chars[index ..< min(index + 4, chars.count)]))
                    guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                        throw Failure(line: line, reason: "bad \\U escape")
                    }
                    out.append(scalar)
                    index += 4
                default: out.append(e)
                }
            }
            throw Failure(line: line, reason: "unterminated string")
        }

        while true {
            try skipTrivia()
            if peek() == nil { return pairs }
            let key = try quoted()
            try expect("=")
            let value = try quoted()
            try expect(";")
            pairs.append((key, value))
        }
    }
}
