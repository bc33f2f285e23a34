import Foundation
import Pipeline
import Realtime

/// Campaigns on the call manager's queue: a running campaign turns its contacts into queued calls
/// as its window, pacing and concurrency allow; the queue dials them like any other call.
extension CallManager {
    /// Stores a draft campaign over the current version of `template` (id or name), which all of
    /// its calls will run.
    public func createCampaign(_ draft: Campaign, template key: String) async throws -> Campaign {
        var campaign = draft
        var problems = campaign.problems(globalLimit: settings.maxConcurrentCalls)
        do {
            let template = try await runnableTemplate(key)
            campaign.templateId = template.id
            campaign.templateVersion = template.version
        } catch let invalid as ValidationError {
            problems += invalid.fields
        }
        guard problems.isEmpty else { throw ValidationError(fields: problems) }
        campaign.callerNumber = OutboundCallRequest.normalize(number: campaign.callerNumber) ?? campaign.callerNumber
        campaign.state = .draft
        try await store.campaigns.create(campaign)
        return campaign
    }

    public struct UploadReport: Sendable, Equatable {
        public var accepted = 0
        public var skipped: [ContactListReader.Problem] = []
    }

    /// Reads a contact list into a draft campaign, a batch at a time: every row is taken or
    /// reported (bad number, duplicate, do-not-call, a template variable it has no value for).
    public func uploadContacts(campaignID: String, csv: Data, phoneColumn: String?) async throws -> UploadReport {
        guard let campaign = try await store.campaigns.campaign(id: campaignID) else { throw CampaignStore.Failure.notFound(campaignID) }
        guard campaign.state == .draft else { throw CampaignStore.Failure.notDraft(campaignID) }
        var list = try ContactListReader(stream: InputStream(data: csv), phoneColumn: phoneColumn)
        let template = try await campaignTemplate(campaign)
        var report = UploadReport()
        var batch: [ContactListReader.Contact] = [], problems: [ContactListReader.Problem] = []
        let phone = list.phoneColumn, columns = list.header.filter { $0 != list.phoneColumn && !$0.isEmpty }
        var read = false
        while !read {
            switch try list.next() {
            case nil: read = true
            case .problem(let problem): problems.append(problem)
            case .contact(let contact):
                do {
                    _ = try request(for: contact, in: campaign).applying(template)
                    batch.append(contact)
                } catch {
                    problems.append(.init(line: contact.line, column: "", value: contact.number, reason: error.description))
                }
            }
            guard read || batch.count + problems.count >= 500 else { continue }   // stored 500 rows at a time
            let (accepted, refused) = try await storeContacts(batch, problems: problems, campaignID: campaignID, phoneColumn: phone, columns: columns)
            report.accepted += accepted
            report.skipped += refused
            batch = []
            problems = []
        }
        report.skipped.sort { $0.line < $1.line }
        return report
    }

    /// Stores one batch of an upload; a contact on the do-not-call list becomes a problem. Returns
    /// how many contacts were added and every problem (the batch's own, and the duplicates refused).
    private func storeContacts(_ batch: [ContactListReader.Contact], problems: [ContactListReader.Problem], campaignID: String,
                               phoneColumn: String, columns: [String]) async throws -> (accepted: Int, refused: [ContactListReader.Problem]) {
        let listed = try await store.doNotCall.listed(among: batch.map(\.number))
        let callable = batch.filter { !listed.contains($0.number) }
        let problems = problems + batch.filter { listed.contains($0.number) }
            .map { .init(line: $0.line, column: phoneColumn, value: $0.number, reason: "on the do-not-call list") }
        let refused = try await store.campaigns.addContacts(campaignID: campaignID, callable, problems: problems, columns: columns)
        return (callable.count - (refused.count - problems.count), refused)
    }

    /// start (draft or paused → running), pause, cancel.
    public func setCampaign(_ id: String, to state: CampaignState) async throws -> Campaign {
        let campaign = try await store.campaigns.transition(campaignID: id, to: state)
        if state != .running {
            dialableCampaigns.remove(id)
            campaignsStoppedDuringTick.insert(id)
        } else {
            queueAlarm.ring()
        }
        return campaign
    }

    /// One step of every running campaign: inside its window, as its pacing and free slots allow,
    /// its next contacts become queued calls; with no contact waiting and no call open it is
    /// completed. `run()` calls this every 100 ms while one runs; tests call it with their own clocks.
    /// Returns whether any campaign is running (its pacing wants the next tick soon).
    @discardableResult
    func campaignTick(now: Date, monotonic: Double) async -> Bool {
        campaignsStoppedDuringTick = []
        guard let running = try? await store.campaigns.list(inStates: [.running]) else { return false }
        var dialable = Set<String>()
        for campaign in running {
            var pacer = campaignPacers[campaign.id] ?? DialPacer(callsPerMinute: campaign.callsPerMinute)
            defer { campaignPacers[campaign.id] = pacer }
            guard campaign.window?.contains(now) ?? true else {
                _ = pacer.release(wanted: 0, now: monotonic)
                continue
            }
            dialable.insert(campaign.id)
            let holding = (try? await store.campaigns.callsHoldingSlots(campaignID: campaign.id, now: now)) ?? campaign.maxConcurrentCalls
            let paced = pacer.release(wanted: max(0, campaign.maxConcurrentCalls - holding), now: monotonic)
            for _ in 0..<campaignBudget.take(paced, now: monotonic) {
                guard (try? await claimNextCall(of: campaign)) != nil else { break }
            }
            if let progress = try? await store.campaigns.progress(campaignID: campaign.id), progress.waiting == 0, progress.open == 0 {
                _ = try? await store.campaigns.transition(campaignID: campaign.id, to: .completed, now: now)
                campaignPacers[campaign.id] = nil
                logger.info("campaign completed", metadata: ["campaign": "\(campaign.id)"])
            }
        }
        dialableCampaigns = dialable.subtracting(campaignsStoppedDuringTick)
        return !running.isEmpty
    }

    /// The campaign's next contact as a queued call, claimed in the same transaction.
    @discardableResult
    func claimNextCall(of campaign: Campaign) async throws -> CallRecord? {
        let template = try await campaignTemplate(campaign)
        let started = ContinuousClock.now
        defer { metrics.campaignClaim.recordNanoseconds(Int64(started.duration(to: .now).totalNanoseconds)) }
        return try await store.campaigns.claimNextContact(campaignID: campaign.id) { [self] contact in
            do {
                var call = try record(for: request(for: contact, in: campaign), template: template, requestedBy: "campaign")
                call.campaignId = campaign.id
                call.retryOn = campaign.retry.on.joined(separator: ",")
                call.retryInterval = campaign.retry.delaySeconds
                return .success(call)
            } catch {
                return .failure(CampaignStore.ClaimSkip("\(error)"))
            }
        }
    }

    /// The call a contact gets: the campaign's caller and retry policy, the contact's columns as
    /// variables. A `simulated_answers` column ("yes|no|…") scripts the built-in simulated callee.
    nonisolated func request(for contact: ContactListReader.Contact, in campaign: Campaign) -> OutboundCallRequest {
        var metadata: String?
        if let script = contact.variables["simulated_answers"], !script.isEmpty,
           let data = try? JSONSerialization.data(withJSONObject: ["simulated_answers": script.split(separator: "|").map(String.init)]) {
            metadata = String(decoding: data, as: UTF8.self)
        }
        var request = OutboundCallRequest(callerNumber: campaign.callerNumber, calleeNumber: contact.number, purpose: "", questions: [],
                                          callerDisplayName: campaign.callerDisplayName.isEmpty ? nil : campaign.callerDisplayName,
                                          retryOnNoAnswer: true, maxRetries: campaign.retry.maxRetries, metadata: metadata)
        request.variables = contact.variables
        return request
    }

    /// The template version the campaign's calls run.
    public func campaignTemplate(_ campaign: Campaign) async throws -> CallTemplate {
        guard let template = try await store.template(id: campaign.templateId, version: campaign.templateVersion) else {
            throw ValidationError(fields: [.init(name: "template", message: "template \(campaign.templateId) version \(campaign.templateVersion) is gone")])
        }
        return template
    }
}
