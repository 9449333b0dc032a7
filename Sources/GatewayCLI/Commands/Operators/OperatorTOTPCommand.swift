import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl operator totp NAME [--remove]`: enrols (or removes) a person's TOTP second
/// factor for the admin sign-in page. Enrolling shows the secret once.
struct OperatorTOTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "totp",
        abstract: "Enrol a person's TOTP second factor for the admin sign-in (or --remove it).",
        discussion: """
            Prints a new secret once, as an otpauth:// URI for an authenticator app and as Base32 \
            text; it is sealed at rest. Enrolling again replaces it. Either way the person's \
            sign-ins end. With GATEWAY_ADMIN_REQUIRE_TOTP=true a person without one cannot sign in.
            """)
    @Argument(help: "The person's operator name.") var name: String
    @Flag(help: "Remove the second factor instead.") var remove = false
    @OptionGroup var global: GlobalOptions

    struct Document: Encodable {
        var `operator`: String
        var totp: Bool
        var secret: String?
        var otpauthURI: String?
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let secret = try await access.service.setSecondFactor(name: name, enrol: !remove, actor: access.actor)
        let uri = secret.map { TOTP.provisioningURI(secret: $0, issuer: "SuperApp Gateway operators", account: name) }
        let document = Document(operator: name, totp: !remove, secret: secret, otpauthURI: uri)
        if global.json {
            try context.printJSON(document)
            return
        }
        guard let secret, let uri else {
            context.print("\(name) has no second factor now")
            return
        }
        context.print("enrolled a second factor for \(name) (shown once; add it to an authenticator app now)")
        context.print("otpauth URI: \(uri)")
        context.print("secret: \(secret)")
    }
}
