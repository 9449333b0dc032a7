/// The custom permissions a mini app may request (names as the mini-app SDKs define them).
public enum CustomPermission: String, Sendable, CaseIterable, Codable {
    case userName = "rakuten.miniapp.user.USER_NAME"
    case profilePhoto = "rakuten.miniapp.user.PROFILE_PHOTO"
    case contactList = "rakuten.miniapp.user.CONTACT_LIST"
    case accessToken = "rakuten.miniapp.user.ACCESS_TOKEN"
    case sendMessage = "rakuten.miniapp.user.action.SEND_MESSAGE"
    case location = "rakuten.miniapp.device.LOCATION"
    case points = "rakuten.miniapp.user.POINTS"
    case fileDownload = "rakuten.miniapp.device.FILE_DOWNLOAD"
    /// The gateway's own: the mini app may send the user push notifications (issue 30).
    case notifications = "gateway.user.NOTIFICATIONS"

    /// The title the SDKs show on the permission screen.
    public var title: String {
        switch self {
        case .userName: "User Name"
        case .profilePhoto: "Profile Photo"
        case .contactList: "Contact List"
        case .accessToken: "Access Token"
        case .sendMessage: "Send Message"
        case .location: "Device Location"
        case .points: "Rakuten Points"
        case .fileDownload: "File Download"
        case .notifications: "Notifications"
        }
    }

    /// What granting the permission lets the mini app do.
    public var summary: String {
        switch self {
        case .userName: "Retrieve the user's name from the host app."
        case .profilePhoto: "Retrieve the user's profile photo from the host app."
        case .contactList: "Retrieve the user's list of contacts from the host app."
        case .accessToken: "Retrieve access tokens for the audiences and scopes the mini app declares."
        case .sendMessage: "Send messages to the user's contacts through the host app."
        case .location: "Retrieve the device's location through the host app."
        case .points: "Retrieve the user's points (standard, term, cash) from the host app."
        case .fileDownload: "Download files (attachments) through the host app."
        case .notifications: "Send you push notifications on the devices you signed in on."
        }
    }
}

/// The user's answer to one custom permission.
public enum ConsentStatus: String, Sendable, CaseIterable, Codable {
    case allowed = "ALLOWED"
    case denied = "DENIED"
}
