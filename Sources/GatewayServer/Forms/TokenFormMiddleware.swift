import GatewayAPI
import Hummingbird
import NIOCore

/// The token endpoint's form, read by ``TokenFormMiddleware`` from the request's bytes;
/// `postToken` takes it instead of what the generated decoder found in the (then empty) body.
enum PreparsedTokenForm {
    @TaskLocal static var current: Components.Schemas.TokenForm?
}

/// Reads `POST /t/{tenant}/oauth2/token`'s form with ``URLEncodedFormFields`` and
/// ``FormFieldsDecoder`` (the generated decoder's rules, on bytes) instead of the generated
/// decoder, which scans the body as `Character`s once per field: an 8 KiB form cost about as
/// much CPU as a whole refresh, so refusing junk was as dear as serving a client. A body
/// that is not ASCII is left to the generated decoder (its rules there are the grapheme
/// clusters'), as is any other media type (it answers those 415).
struct TokenFormMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    /// A bound of its own, beside the edge's (``BodyLimitMiddleware`` cuts the token form at 8 KiB).
    static let largestBody = 1 << 20

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard context.scope.route.operation?.id == Operations.PostToken.id, Self.isForm(request) else {
            return try await next(request, context)
        }
        let body = try await request.body.collect(upTo: Self.largestBody)
        var request = request
        switch URLEncodedFormFields.parse(body.readableBytesView) {
        case .notASCII:
            request.body = RequestBody(buffer: body)
            return try await next(request, context)
        case .fields(let fields):
            let form: Components.Schemas.TokenForm
            do {
                form = try FormFieldsDecoder.decode(Components.Schemas.TokenForm.self, from: fields)
            } catch {
                throw GatewayProblem.unparsableRequest()
            }
            request.body = RequestBody(buffer: ByteBuffer())
            return try await PreparsedTokenForm.$current.withValue(form) { try await next(request, context) }
        }
    }

    /// `application/x-www-form-urlencoded`, with or without parameters.
    static func isForm(_ request: Request) -> Bool {
        guard let type = request.headers.value(of: .contentType) else { return false }
        let media = type.prefix { $0 != ";" }.trimmingBlanks
        return media.lowercased() == "application/x-www-form-urlencoded"
    }
}
