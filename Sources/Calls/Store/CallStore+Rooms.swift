/// The domains' rooms in the one database: each its own store type beside its domain, sharing
/// the call store's transactions (and, where it seals, its cipher). Made on each use (a few
/// references): holding them would tie them and the store in a cycle.
extension CallStore {
    public var campaigns: CampaignStore { CampaignStore(calls: self) }
    public var doNotCall: DoNotCallList { DoNotCallList(shared: shared, numbers: numbers) }
    public var knowledge: KnowledgeStore { KnowledgeStore(shared: shared) }
    public var knowledgeQuestions: KnowledgeQuestionStore { KnowledgeQuestionStore(shared: shared, cipher: cipher) }
    public var webhooks: WebhookStore { WebhookStore(shared: shared, cipher: cipher) }
    public var nodes: ClusterNodes { ClusterNodes(shared: shared) }
}
