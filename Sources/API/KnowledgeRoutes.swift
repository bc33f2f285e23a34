import Calls
import Crypto
import Foundation
import Hummingbird
import Knowledge

/// `/api/knowledge`: collections of the operator's documents that calls search. An upload checks
/// every file before storing any and replaces each named document in one transaction, so a
/// collection is never half-replaced and calls searching meanwhile see the old text or the new.
extension VoiceBridgeServer {
    /// Largest JSON upload (several files, base64 or text).
    static let knowledgeUploadLimit = 24 * 1024 * 1024
    /// At most this many documents, and chunks in all, in one upload: each chunk is embedded on the
    /// one embedding lane calls' searches wait on (~36 ms a chunk here), so one request may hold it
    /// for under a minute, not half an hour.
    static let maximumDocumentsPerUpload = 16
    static let maximumChunksPerUpload = 1_000

    static func sizeProblem(_ documents: [KnowledgeDocument]) -> ProblemDetails.InvalidField? {
        if documents.count > maximumDocumentsPerUpload {
            return .init(field: "documents", message: "at most \(maximumDocumentsPerUpload) documents in one upload; send the rest in another")
        }
        let chunks = documents.reduce(0) { $0 + $1.chunks.count }
        if chunks > maximumChunksPerUpload {
            return .init(field: "documents", message: "the documents make \(chunks) passages; at most \(maximumChunksPerUpload) in one upload (split the upload, or the collection)")
        }
        return nil
    }

    func addKnowledgeRoutes(to api: RouterGroup<BasicRequestContext>) {
        let knowledge = api.group("knowledge")
        knowledge.get { _, _ -> KnowledgeCollections in
            KnowledgeCollections(items: try await self.store.knowledge.collections())
        }
        knowledge.get(":collection") { _, context -> KnowledgeCollectionView in
            let name = try Self.collection(context)
            let documents = try await self.store.knowledge.documents(collection: name)
            guard !documents.isEmpty else { throw ProblemDetails(.notFound, detail: "no knowledge collection named \(name)") }
            return KnowledgeCollectionView(name: name, documents: documents)
        }
        // Several files at once, all or none: `{"documents": [{"name": "faq.csv", "content": "…"}]}`
        // (`content_base64` for bytes as they are, which is how a file that is not UTF-8 is named as such).
        knowledge.post(":collection/documents") { request, context -> KnowledgeUploaded in
            let name = try Self.collection(context)
            let body = try await Self.decodeJSONBody(request, as: KnowledgeUploadBody.self, limit: Self.knowledgeUploadLimit)
            let files = body.documents ?? []
            guard !files.isEmpty else {
                throw ProblemDetails(.unprocessableContent, detail: "nothing to upload", errors: [.init(field: "documents", message: "must hold at least one document")])
            }
            var problems: [ProblemDetails.InvalidField] = []
            var documents: [KnowledgeDocument] = []
            for (i, file) in files.enumerated() {
                let bytes: [UInt8]
                switch (file.content, file.contentBase64) {
                case (let text?, nil): bytes = Array(text.utf8)
                case (nil, let base64?):
                    guard let data = Data(base64Encoded: base64) else {
                        problems.append(.init(field: "documents.\(i).content_base64", message: "\(file.name ?? "the file"): is not base64")); continue
                    }
                    bytes = Array(data)
                default:
                    problems.append(.init(field: "documents.\(i)", message: "give content (text) or content_base64 (bytes), one of them")); continue
                }
                do throws(KnowledgeFileError) {
                    documents.append(try Self.document(name: file.name ?? "", bytes: bytes))
                } catch {
                    problems.append(.init(field: "documents.\(i)", message: error.description))
                }
            }
            if Set(documents.map(\.name)).count < documents.count {
                problems.append(.init(field: "documents", message: "two documents have the same name"))
            }
            if let problem = Self.sizeProblem(documents) { problems.append(problem) }
            guard problems.isEmpty else {
                throw ProblemDetails(.unprocessableContent, detail: "\(problems.count) file(s) cannot be indexed; nothing was stored", errors: problems)
            }
            return KnowledgeUploaded(documents: try await self.knowledge.upload(collection: name, documents: documents))
        }
        // One file as it is (`curl -T faq.csv …/documents/faq.csv`): replaces the document of that name.
        knowledge.put(":collection/documents/:name") { request, context -> KnowledgeUploaded in
            let name = try Self.collection(context)
            let file = context.parameters.get("name") ?? ""
            let buffer = try await request.body.collect(upTo: KnowledgeDocument.maximumBytes + 1)
            let document: KnowledgeDocument
            do throws(KnowledgeFileError) {
                document = try Self.document(name: file, bytes: Array(buffer.readableBytesView))
            } catch {
                throw ProblemDetails(.unprocessableContent, detail: error.description, errors: [.init(field: "body", message: error.description)])
            }
            if let problem = Self.sizeProblem([document]) {
                throw ProblemDetails(.unprocessableContent, detail: problem.message, errors: [.init(field: "body", message: problem.message)])
            }
            return KnowledgeUploaded(documents: try await self.knowledge.upload(collection: name, documents: [document]))
        }
        knowledge.get(":collection/documents/:name") { _, context -> KnowledgeDocumentView in
            let name = try Self.collection(context), file = context.parameters.get("name") ?? ""
            guard let info = try await self.store.knowledge.documents(collection: name).first(where: { $0.name == file }) else {
                throw ProblemDetails(.notFound, detail: "no document \(file) in \(name)")
            }
            return KnowledgeDocumentView(document: info, chunks: try await self.store.knowledge.chunks(collection: name, document: file))
        }
        knowledge.delete(":collection/documents/:name") { _, context -> Response in
            let name = try Self.collection(context), file = context.parameters.get("name") ?? ""
            guard try await self.store.knowledge.deleteDocument(collection: name, name: file) else {
                throw ProblemDetails(.notFound, detail: "no document \(file) in \(name)")
            }
            return Response(status: .noContent)
        }
        knowledge.delete(":collection") { _, context -> Response in
            let name = try Self.collection(context)
            guard try await self.store.knowledge.deleteCollection(name) > 0 else { throw ProblemDetails(.notFound, detail: "no knowledge collection named \(name)") }
            return Response(status: .noContent)
        }
        // What a call would find: the dashboard's search test.
        knowledge.get(":collection/search") { request, context -> KnowledgeSearchResults in
            let name = try Self.collection(context)
            let query = request.uri.queryParameters.get("q") ?? ""
            guard !query.trimmingCharacters(in: .whitespaces).isEmpty, query.count <= 500 else {
                throw ProblemDetails(.unprocessableContent, detail: "invalid query parameters", errors: [.init(field: "q", message: "must be 1 to 500 characters")])
            }
            let limit = request.uri.queryParameters.get("limit").flatMap(Int.init) ?? 5
            guard (1...20).contains(limit) else {
                throw ProblemDetails(.unprocessableContent, detail: "invalid query parameters", errors: [.init(field: "limit", message: "must be between 1 and 20")])
            }
            let started = ContinuousClock.now
            let hits = try await self.knowledge.searchKnowledge(query, in: [name], limit: limit)
            let answer = KnowledgeAnswerPolicy.standard.answer(from: hits)
            return KnowledgeSearchResults(results: hits, localEngineAnswer: answer?.chunk.text, milliseconds: started.duration(to: .now) / .milliseconds(1))
        }
    }

    static func collection(_ context: BasicRequestContext) throws -> String {
        let name = context.parameters.get("collection") ?? ""
        if let problem = KnowledgeCollection.nameProblem(name) {
            throw ProblemDetails(.unprocessableContent, detail: "invalid collection name", errors: [.init(field: "collection", message: problem)])
        }
        return name
    }

    static func document(name: String, bytes: [UInt8]) throws(KnowledgeFileError) -> KnowledgeDocument {
        let sha256 = SHA256.hash(data: bytes).hexDigits
        return try KnowledgeDocument.parse(name: name, bytes: bytes, sha256: sha256)
    }
}

struct KnowledgeUploadBody: Decodable {
    struct File: Decodable {
        var name: String?
        var content: String?
        var contentBase64: String?
        enum CodingKeys: String, CodingKey {
            case name, content
            case contentBase64 = "content_base64"
        }
    }
    var documents: [File]?
}

struct KnowledgeCollections: ResponseEncodable {
    var items: [KnowledgeStore.CollectionInfo]
}

struct KnowledgeCollectionView: ResponseEncodable {
    var name: String
    var documents: [KnowledgeStore.DocumentInfo]
}

struct KnowledgeUploaded: ResponseEncodable {
    var documents: [KnowledgeStore.DocumentInfo]
}

struct KnowledgeDocumentView: ResponseEncodable {
    var document: KnowledgeStore.DocumentInfo
    var chunks: [KnowledgeChunk]
}

struct KnowledgeSearchResults: ResponseEncodable {
    var results: [KnowledgeHit]
    /// What the offline engine would say to this question (nil: it would pass the question on).
    var localEngineAnswer: String?
    var milliseconds: Double

    enum CodingKeys: String, CodingKey {
        case results, milliseconds
        case localEngineAnswer = "local_engine_answer"
    }
}
