import Calls
import Foundation
import Hummingbird
import NIOCore

/// RFC 9457 problem details: every API error is `application/problem+json` with a title, the
/// status, a human-readable detail and, for invalid input, one entry per invalid field.
struct ProblemDetails: Error, Codable, Equatable {
    struct InvalidField: Codable, Equatable {
        var field: String
        var message: String
    }

    var type = "about:blank"
    var title: String
    var status: Int
    var detail: String
    var errors: [InvalidField]?

    init(_ status: HTTPResponse.Status, detail: String, errors: [InvalidField]? = nil) {
        self.status = status.code
        self.title = status.reasonPhrase
        self.detail = detail
        self.errors = errors
    }

    func response(headers: HTTPFields = [:]) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(self)) ?? Data(#"{"title":"Internal Server Error","status":500}"#.utf8)
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The problem an error thrown by a route stands for.
    static func from(_ error: any Error) -> ProblemDetails {
        switch error {
        case let problem as ProblemDetails:
            return problem
        case let invalid as ValidationError:
            return ProblemDetails(.unprocessableContent, detail: "the request has \(invalid.fields.count) invalid field(s)",
                                  errors: invalid.fields.map { InvalidField(field: $0.name, message: $0.message) })
        case CallManager.Failure.notFound(let id):
            return ProblemDetails(.notFound, detail: "no call with id \(id)")
        case CallManager.Failure.conflict(let message):
            return ProblemDetails(.conflict, detail: message)
        case let failure as CampaignStore.Failure:
            if case .notFound = failure { return ProblemDetails(.notFound, detail: failure.description) }
            return ProblemDetails(.conflict, detail: failure.description)
        case let failure as ContactListReader.Failure:
            return ProblemDetails(.unprocessableContent, detail: failure.description)
        case CallManager.Failure.doNotCall(let number):
            return ProblemDetails(.forbidden, detail: CallManager.Failure.doNotCall(number).description)
        case is NIOTooManyBytesError:
            return ProblemDetails(.contentTooLarge, detail: "the request body is too large")
        case let http as HTTPError:
            return ProblemDetails(http.status, detail: http.body ?? http.status.reasonPhrase)
        default:
            return ProblemDetails(.internalServerError, detail: "internal error")
        }
    }
}

/// Turns anything a `/api` route throws into problem+json (and unknown `/api` paths into a 404 one).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = ProblemDetails.from(error)
            if problem.status >= 500 { context.logger.error("API error", metadata: ["path": "\(request.uri.path)", "error": "\(error)"]) }
            var headers: HTTPFields = [:]
            if let http = error as? HTTPError { headers = http.headers }
            return problem.response(headers: headers)
        }
    }
}
