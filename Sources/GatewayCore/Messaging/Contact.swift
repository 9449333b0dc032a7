import Crypto
import Foundation

/// One entry of a user's contact list, as the SDKs' `Contact` (`id`, `name`, `email`).
public struct Contact: Sendable, Equatable, Codable {
    /// The subject of a user of the tenant, or `ext_…` (derived from the email) for an
    /// external contact.
    public var id: String
    public var name: String?
    public var email: String?
    /// Whether `id` names a user of the tenant (only those can be sent messages).
    public var isUser: Bool

    public init(id: String, name: String?, email: String?, isUser: Bool) {
        self.id = id
        self.name = name
        self.email = email
        self.isUser = isUser
    }
}

/// What the host app uploads for one contact: a user of the tenant (`id`), or an external
/// contact (`name` and `email`, no `id`).
public struct ContactUpload: Sendable, Equatable {
    public var id: String?
    public var name: String?
    public var email: String?

    public init(id: String? = nil, name: String? = nil, email: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
    }
}

/// What a contact list must satisfy before it is stored.
public enum ContactRules {
    /// Contacts per user unless configured.
    public static let defaultMaxContacts = 5_000
    /// Name and email lengths (characters; an email as RFC 5321 bounds it).
    public static let maxName = 256, maxEmail = 254

    /// The contacts `uploads` describe, in order, for `userID`.
    /// - Throws: ``MessagingError/tooManyContacts(max:)``, ``MessagingError/invalidContacts(_:)``.
    public static func contacts(_ uploads: [ContactUpload], of userID: String, max: Int) throws(MessagingError)
        -> [Contact]
    {
        if uploads.count > max { throw .tooManyContacts(max: max) }
        var seen: Set<String> = []
        var contacts: [Contact] = []
        contacts.reserveCapacity(uploads.count)
        for (index, upload) in uploads.enumerated() {
            func fail(_ text: String) throws(MessagingError) -> Never { throw .invalidContacts("contacts[\(index)]: \(text)") }
            if let name = upload.name, name.isEmpty || name.unicodeScalars.count > maxName {
                try fail("a name is 1-\(maxName) characters")
            }
            if let name = upload.name, ControlCharacters.held(in: name) { try fail("a name holds no control character") }
            if let email = upload.email, !isEmail(email) { try fail("malformed email") }
            let contact: Contact
            if let id = upload.id {
                guard ReleasePolicyRules.isUserID(id) else { try fail("malformed user id") }
                guard id != userID else { try fail("a user is not their own contact") }
                contact = Contact(id: id, name: upload.name, email: upload.email, isUser: true)
            } else {
                guard let name = upload.name, let email = upload.email else {
                    try fail("an external contact (no id) needs a name and an email")
                }
                contact = Contact(id: externalID(email: email), name: name, email: email, isUser: false)
            }
            guard seen.insert(contact.id).inserted else { try fail("repeats the contact \(contact.id.prefix(80))") }
            contacts.append(contact)
        }
        return contacts
    }

    /// An external contact's stable id: `ext_` and 22 base64url characters of the SHA-256 of
    /// the lowercased email, so the same person keeps one id across uploads.
    public static func externalID(email: String) -> String {
        "ext_" + String(Base64URL.encode(SHA256.hash(data: Data(email.lowercased().utf8))).prefix(22))
    }

    /// One `@` between a non-empty local part and a domain with a dot, visible ASCII or
    /// non-ASCII letters, no spaces, at most ``maxEmail`` bytes.
    static func isEmail(_ text: String) -> Bool {
        guard text.utf8.count <= maxEmail, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x21 })
        else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix(".")
        else { return false }
        return true
    }
}
