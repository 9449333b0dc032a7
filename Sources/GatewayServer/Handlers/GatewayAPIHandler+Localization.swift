import GatewayAPI
import GatewayCore
import HTTPTypes

extension GatewayAPIHandler {
    func getLocalization(_ input: Operations.GetLocalization.Input) async throws -> Operations.GetLocalization.Output {
        let requested = input.path.locale
        guard requested == "auto" || Self.isLocalePath(requested) else {
            throw GatewayProblem.invalidRequest("`locale` must be a language tag such as `ja` or `ja-JP`, or `auto`.")
        }
        try RequestValidation.length(RequestScope.header(.acceptLanguage), 0...1000, "Accept-Language")
        let tenant = try RequestScope.requireTenant()
        let locale =
            requested == "auto"
            ? try await services.userState.localizationResolver.negotiate(
                tenantID: tenant.id, acceptLanguage: RequestScope.header(.acceptLanguage))
            : requested
        let bundle = try await services.userState.localizations.bundle(tenant: tenant, locale: locale)
        return EntityTag.answer(bundle.etag, notModified: { .notModified(.init(headers: .init(eTag: $0))) }) {
            .ok(
                .init(
                    headers: .init(eTag: bundle.etag),
                    body: .json(
                        .init(
                            locale: bundle.locale, chain: bundle.chain,
                            entries: .init(additionalProperties: bundle.entries)))
                ))
        }
    }

    /// The contract's locale pattern: a tag ``LocaleTag`` accepts (a 2-3 letter language,
    /// subtags of 1-8 letters/digits, `-` or `_`) with at most three subtags and 35 characters.
    static func isLocalePath(_ tag: String) -> Bool {
        let parts = tag.utf8.split(omittingEmptySubsequences: false) {
            $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
        return tag.utf8.count <= 35 && parts.count <= 4 && LocaleTag.normalize(tag) != nil
    }
}
