import Calls
import Foundation
import Hummingbird
import NIOCore

/// Seed 000 §11 (spam prevention): `/api/dnc`, the numbers no call may reach. Every outbound call,
/// single or from a campaign, is checked against it when queued and again when dialed.
extension VoiceBridgeServer {
    func addDoNotCallRoutes(to api: RouterGroup<BasicRequestContext>) {
        let dnc = api.group("dnc")
        dnc.get { request, _ -> DoNotCallPage in
            var problems: [ProblemDetails.InvalidField] = []
            let query = request.uri.queryParameters
            let (limit, offset) = Self.pageParameters(query, problems: &problems)
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "invalid query parameters", errors: problems) }
            let page = try await self.store.doNotCall.page(search: query.get("q"), limit: limit, offset: offset)
            return DoNotCallPage(items: page.entries, total: page.total, limit: limit, offset: offset)
        }
        // Adds numbers, all or none: an invalid one is a 422 naming it.
        dnc.post { request, _ -> DoNotCallAdded in
            let body = try await Self.decodeJSONBody(request, as: DoNotCallBody.self)
            let numbers = body.numbers ?? []
            guard !numbers.isEmpty else {
                throw ProblemDetails(.unprocessableContent, detail: "nothing to add", errors: [.init(field: "numbers", message: "must hold at least one number")])
            }
            var problems: [ProblemDetails.InvalidField] = []
            var entries: [DoNotCallEntry] = []
            for (i, raw) in numbers.enumerated() {
                if let number = OutboundCallRequest.normalize(number: raw) {
                    entries.append(.init(number: number, reason: body.reason ?? "", addedBy: "api"))
                } else {
                    problems.append(.init(field: "numbers.\(i)", message: "'\(raw)' is not a phone number (3 to 20 digits, optionally starting with +)"))
                }
            }
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "\(problems.count) invalid number(s); none added", errors: problems) }
            let added = try await self.store.doNotCall.add(entries)
            return DoNotCallAdded(added: added, alreadyListed: Set(entries.map(\.number)).count - added, skipped: [])
        }
        // A CSV file (a header line, a phone column found by name or `?phone_column=`): every
        // good row is added, every bad one comes back with its line and reason.
        dnc.post("import") { request, _ -> DoNotCallAdded in
            let data = Data((try await request.body.collect(upTo: 32 << 20)).readableBytesView)
            var reader: ContactListReader
            do {
                reader = try ContactListReader(stream: InputStream(data: data), phoneColumn: request.uri.queryParameters.get("phone_column"))
            } catch let failure as ContactListReader.Failure {
                throw ProblemDetails(.unprocessableContent, detail: failure.description)
            }
            let reason = request.uri.queryParameters.get("reason") ?? "imported"
            var entries: [DoNotCallEntry] = [], skipped: [ContactListReader.Problem] = []
            do {
                while let row = try reader.next() {
                    switch row {
                    case .contact(let contact): entries.append(.init(number: contact.number, reason: reason, addedBy: "import"))
                    case .problem(let problem): skipped.append(problem)
                    }
                }
            } catch let failure as ContactListReader.Failure {
                throw ProblemDetails(.unprocessableContent, detail: failure.description)
            }
            let added = try await self.store.doNotCall.add(entries)
            return DoNotCallAdded(added: added, alreadyListed: entries.count - added, skipped: skipped)
        }
        dnc.delete(":number") { _, context -> Response in
            let raw = context.parameters.get("number") ?? ""
            guard let number = OutboundCallRequest.normalize(number: raw) else {
                throw ProblemDetails(.unprocessableContent, detail: "'\(raw)' is not a phone number")
            }
            guard try await self.store.doNotCall.remove(number) else { throw ProblemDetails(.notFound, detail: "\(number) is not on the do-not-call list") }
            return Response(status: .noContent)
        }
    }
}

struct DoNotCallBody: Decodable {
    var numbers: [String]?
    var reason: String?
}

typealias DoNotCallPage = ListPage<DoNotCallEntry>

struct DoNotCallAdded: ResponseEncodable {
    var added: Int
    /// Numbers given that were on the list already (nothing changed for them).
    var alreadyListed: Int
    /// Rows of an imported file that were not added, each with its line and reason.
    var skipped: [ContactListReader.Problem]

    enum CodingKeys: String, CodingKey {
        case added, skipped
        case alreadyListed = "already_listed"
    }
}
