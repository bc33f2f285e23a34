import Calls
import Foundation
import Hummingbird

/// `GET /api/stats` (seed 000 §12): success rate, talk time, outcomes, each question's answers
/// and calls per hour — over every call, or `?campaign=cp-…`'s. Each figure says what it counts.
extension VoiceBridgeServer {
    func addStatisticsRoutes(to api: RouterGroup<BasicRequestContext>) {
        api.get("stats") { request, _ -> CallStore.Statistics in
            let campaign = request.uri.queryParameters.get("campaign")
            if let campaign, try await self.store.campaigns.campaign(id: campaign) == nil { throw ProblemDetails(.notFound, detail: "no campaign \(campaign)") }
            return try await self.store.statistics(campaignID: campaign)
        }
    }
}

extension CallStore.Statistics: ResponseEncodable {}
