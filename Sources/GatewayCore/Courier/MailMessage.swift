import Foundation

/// One e-mail the courier sends: plain UTF-8 text to one address.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String

    public init(to: String, subject: String, text: String) {
        self.to = to
        self.subject = subject
        self.text = text
    }

    /// The message as RFC 5322 bytes from `from`: the subject in RFC 2047 encoded words, the
    /// body base64 (any text, any line length), CRLF line ends. `messageID` is unique per
    /// message (the courier's id), so a relay or a reader can tell a retry from a new one.
    public func rendered(from: String, messageID: String, date: Date) -> [UInt8] {
        let headers = [
            "From: \(from)", "To: \(to)", "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.rfc5322(date))", "Message-ID: <\(messageID)@\(Self.domain(of: from))>",
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64",
        ]
        let body = Data(text.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        return Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n").utf8)
    }

    /// Why the message cannot be sent, or nil: a bad recipient, or a subject with a line break.
    public var problem: String? {
        if MailAddress.problem(to) != nil { return "to must be one e-mail address" }
        if subject.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) || subject.count > 200 {
            return "subject must be one line of at most 200 characters"
        }
        return nil
    }

    /// `text` as RFC 2047 encoded words when it is not plain ASCII (each word ≤ 75 characters).
    static func encodedWord(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) else { return text }
        var words: [String] = []
        var chunk = ""
        for character in text {
            // 45 bytes of UTF-8 become 60 characters of base64, inside the 75 a word may have.
            if (chunk + String(character)).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    static func domain(of address: String) -> String {
        address.split(separator: "@").last.map(String.init) ?? "gateway.invalid"
    }

    /// `date` as RFC 5322 writes it, in UTC (`Fri, 04 Dec 2026 10:00:00 +0000`).
    static func rfc5322(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return "\(days[(c.weekday ?? 1) - 1]), \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}
