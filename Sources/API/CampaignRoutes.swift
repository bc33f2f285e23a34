import Calls
import Foundation
import Hummingbird
import NIOCore

/// `/api/campaigns`: a template called for every contact of an uploaded list (seed 000 §12,
/// seed 004) — create a draft, upload its contacts (CSV, a row report back), start, pause,
/// cancel, follow its progress, export its results.
extension VoiceBridgeServer {
    func addCampaignRoutes(to api: RouterGroup<BasicRequestContext>) {
        let campaigns = api.group("campaigns")
        campaigns.get { _, _ -> CampaignList in
            var items: [CampaignView] = []
            for campaign in try await self.store.campaigns.list() { items.append(CampaignView(campaign, progress: try await self.store.campaigns.progress(campaignID: campaign.id))) }
            return CampaignList(items: items)
        }
        campaigns.post { request, _ -> EditedResponse<CampaignView> in
            let body = try await Self.decodeJSONBody(request, as: CampaignBody.self)
            let campaign = try await self.manager().createCampaign(body.campaign, template: body.template ?? "")
            return EditedResponse(status: .created, headers: [.location: "/api/campaigns/\(campaign.id)"], response: CampaignView(campaign, progress: .init()))
        }
        campaigns.get(":id") { _, context -> CampaignView in
            let campaign = try await self.campaign(context)
            var view = CampaignView(campaign, progress: try await self.store.campaigns.progress(campaignID: campaign.id))
            view.skippedRows = try await self.store.campaigns.problems(campaignID: campaign.id)
            return view
        }
        campaigns.get(":id/contacts") { request, context -> ListPage<CampaignStore.Contact> in
            let campaign = try await self.campaign(context)
            var problems: [ProblemDetails.InvalidField] = []
            let query = request.uri.queryParameters
            let (limit, offset) = Self.pageParameters(query, problems: &problems)
            let state = query.get("state").flatMap { $0.isEmpty ? nil : $0 }
            if let state, !(["waiting", "skipped"] + CallState.allCases.map(\.rawValue)).contains(state) {
                problems.append(.init(field: "state", message: "must be waiting, skipped or a call state"))
            }
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "invalid query parameters", errors: problems) }
            let page = try await self.store.campaigns.contacts(campaignID: campaign.id, state: state, limit: limit, offset: offset)
            return ListPage(items: page.contacts, total: page.total, limit: limit, offset: offset)
        }
        campaigns.post(":id/contacts") { request, context -> UploadView in
            let campaign = try await self.campaign(context)
            let data = Data((try await request.body.collect(upTo: 64 << 20)).readableBytesView)
            let report = try await self.manager().uploadContacts(campaignID: campaign.id, csv: data,
                                                                 phoneColumn: request.uri.queryParameters.get("phone_column"))
            return UploadView(accepted: report.accepted, skipped: report.skipped.count, skippedRows: report.skipped)
        }
        for (action, state) in [("start", CampaignState.running), ("pause", .paused), ("cancel", .cancelled)] {
            campaigns.post(":id/\(action)") { _, context -> CampaignView in
                let campaign = try await self.campaign(context)
                if state == .running, campaign.state == .draft, campaign.contacts == 0 {
                    throw ProblemDetails(.conflict, detail: "campaign \(campaign.id) has no contacts: upload a list first")
                }
                let moved = try await self.manager().setCampaign(campaign.id, to: state)
                return CampaignView(moved, progress: try await self.store.campaigns.progress(campaignID: moved.id))
            }
        }
        for format in [CampaignExport.Format.csv, .jsonl] {
            campaigns.get(":id/results.\(format.rawValue)") { _, context -> Response in
                let campaign = try await self.campaign(context)
                let template = try await self.manager().campaignTemplate(campaign)
                let export = CampaignExport(campaign: campaign, questions: template.questions, fields: template.flow?.asks.compactMap(\.field) ?? [],
                                             analysed: template.analysis != nil, languages: !(template.languages ?? []).isEmpty, format: format)
                let store = self.store
                let body = ResponseBody { writer in
                    try await writer.write(ByteBuffer(bytes: export.opening()))
                    var after: Int64? = 0
                    while let from = after {
                        let page = try await store.campaigns.results(campaignID: campaign.id, after: from)
                        try await writer.write(ByteBuffer(bytes: export.page(page.rows)))
                        after = page.nextAfter
                    }
                    try await writer.finish(nil)
                }
                return Response(status: .ok, headers: [.contentType: format.contentType,
                                                       .contentDisposition: "attachment; filename=\"\(campaign.id)-results.\(format.rawValue)\""], body: body)
            }
        }
    }

    func campaign(_ context: BasicRequestContext) async throws -> Campaign {
        let id = context.parameters.get("id") ?? ""
        guard let campaign = try await store.campaigns.campaign(id: id) else { throw ProblemDetails(.notFound, detail: "no campaign \(id)") }
        return campaign
    }
}

/// `POST /api/campaigns` body; missing fields are reported by validation, all at once.
struct CampaignBody: Decodable {
    var name: String?
    var template: String?
    var callerNumber: String?
    var callerDisplayName: String?
    var window: CallingWindow?
    var callsPerMinute: Int?
    var maxConcurrentCalls: Int?
    var retry: Campaign.RetryPolicy?

    enum CodingKeys: String, CodingKey {
        case name, template, window, retry
        case callerNumber = "caller_number", callerDisplayName = "caller_display_name"
        case callsPerMinute = "calls_per_minute", maxConcurrentCalls = "max_concurrent_calls"
    }

    var campaign: Campaign {
        Campaign(name: name ?? "", callerNumber: callerNumber ?? "", callerDisplayName: callerDisplayName ?? "", window: window,
                 callsPerMinute: callsPerMinute ?? 10, maxConcurrentCalls: maxConcurrentCalls ?? 1, retry: retry ?? .init())
    }
}

struct CampaignView: ResponseEncodable {
    var campaign: Campaign
    var progress: CampaignStore.Progress
    /// Detail only: the rows its uploads skipped, with line and reason.
    var skippedRows: [ContactListReader.Problem]?

    init(_ campaign: Campaign, progress: CampaignStore.Progress) {
        self.campaign = campaign
        self.progress = progress
    }

    func encode(to encoder: Encoder) throws {
        try campaign.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(progress, forKey: .progress)
        try container.encodeIfPresent(skippedRows, forKey: .skippedRows)
    }

    enum Keys: String, CodingKey {
        case progress
        case skippedRows = "skipped_rows"
    }
}

struct CampaignList: ResponseEncodable {
    var items: [CampaignView]
}

struct UploadView: ResponseEncodable {
    var accepted: Int
    var skipped: Int
    var skippedRows: [ContactListReader.Problem]

    enum CodingKeys: String, CodingKey {
        case accepted, skipped
        case skippedRows = "skipped_rows"
    }
}
