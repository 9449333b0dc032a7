import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getLocalization(_ input: Operations.GetLocalization.Input) async throws -> Operations.GetLocalization.Output {
        let requested = input.path.locale
        guard requested == "auto" || Self.isLocalePath(requested) else {
            throw GatewayProblem.invalidRequest("`locale` must be a language tag such as `ja` or `ja-JP`, or `auto`.")
        }
        try RequestValidation.length(input.headers.acceptLanguage, 0...1000, "Accept-Language")
        let tenant = try RequestScope.requireTenant()
        guard let userState else { throw GatewayProblem.internalError() }
        let locale = requested == "auto"
            ? try await userState.localizationResolver.negotiate(tenantID: tenant.id, acceptLanguage: input.headers.acceptLanguage)
            : requested
        let bundle = try await userState.localizations.bundle(tenant: tenant, locale: locale)
        if EntityTag.matches(input.headers.ifNoneMatch, bundle.etag) { return .notModified(.init(headers: .init(eTag: bundle.etag))) }
        return .ok(.init(
            headers: .init(eTag: bundle.etag),
            body: .json(.init(locale: bundle.locale, chain: bundle.chain, entries: .init(additionalProperties: bundle.entries)))
        ))
    }

    /// The contract's locale pattern: a 2-3 letter language and up to three subtags of
    /// 1-8 letters/digits, separated by `-` or `_`, at most 35 characters.
    static func isLocalePath(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard tag.utf8.count <= 35, parts.count <= 4, let language = parts.first,
              (2...3).contains(language.utf8.count), language.utf8.allSatisfy(Self.isASCIILetter) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.utf8.count) && part.utf8.allSatisfy { Self.isASCIILetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
