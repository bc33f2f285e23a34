import Calls
import Foundation
import Knowledge
import Pipeline
import TestSupport
import Tools

/// The knowledge base's offline path, measured: a clinic FAQ of 200 entries (100 English, 100
/// Korean, `Benchmarks/knowledge/`) searched with 400 questions written for the test in other
/// words than the FAQ's (two per entry). Recall@1/@3 of the store's search (BM25 on SQLite,
/// `ts_rank` on PostgreSQL), what the local engine would do with each question (answer right,
/// answer wrong, pass it on), and search latency with the collection grown to 10,000 chunks.
enum KnowledgeBenchmark {
    struct Question {
        var language: String
        var expected: String   // the FAQ question that answers it
        var text: String
    }

    struct Recall {
        var backend: String
        var language: String
        var chunks: Int
        var questions: Int
        var atOne: Int
        var atThree: Int
        /// What the local engine does with them under `KnowledgeAnswerPolicy.standard`.
        var answeredRight: Int
        var answeredWrong: Int
        var passedOn: Int
    }

    struct Latency {
        var backend: String
        var chunks: Int
        var searches: Int
        var p50: Double
        var p99: Double
    }

    static var folder: URL { Fixtures.repository.appendingPathComponent("Benchmarks/knowledge") }

    /// The FAQ documents and the questions, each question tied to the FAQ question it asks for.
    static func load() throws -> (documents: [KnowledgeDocument], questions: [Question]) {
        var documents: [KnowledgeDocument] = [], questions: [Question] = []
        for language in ["en", "ko"] {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent("clinic-faq-\(language).csv")))
            let document = try KnowledgeDocument.parse(name: "clinic-faq-\(language).csv", bytes: bytes, sha256: language)
            documents.append(document)
            let prefix = language == "en" ? "e" : "k"
            let text = try String(contentsOf: folder.appendingPathComponent("paraphrases-\(language).tsv"), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "\t", maxSplits: 1)
                guard parts.count == 2, parts[0].hasPrefix(prefix), let n = Int(parts[0].dropFirst()), document.chunks.indices.contains(n - 1) else {
                    throw BenchError("paraphrases-\(language).tsv: bad line '\(line)'")
                }
                questions.append(Question(language: language, expected: document.chunks[n - 1].title, text: String(parts[1])))
            }
        }
        return (documents, questions)
    }

    /// Rows that are not in the FAQ, to grow the collection: sentences of words drawn from both
    /// FAQs' vocabulary (so they compete for the same terms), a fixed seed.
    static func filler(count: Int, from documents: [KnowledgeDocument]) throws -> [KnowledgeDocument] {
        let words = documents.flatMap { $0.chunks.flatMap { ($0.title + " " + $0.text).split(separator: " ").map(String.init) } }
        var generator = SeededRandom(seed: 42)
        var files: [String] = []
        var csv = "question,answer\n"
        for n in 0..<count {
            if n > 0, n.isMultiple(of: 2000) { files.append(csv); csv = "question,answer\n" }   // files under the 2 MB limit
            let question = (0..<6).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
            let answer = (0..<24).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
            csv += "\"\(n) \(question.replacingOccurrences(of: "\"", with: ""))\",\"\(answer.replacingOccurrences(of: "\"", with: ""))\"\n"
        }
        files.append(csv)
        return try files.enumerated().map { n, csv in try KnowledgeDocument.parse(name: "filler-\(n).csv", bytes: Array(csv.utf8), sha256: "filler-\(n)") }
    }

    static func recall(_ base: KnowledgeBase, backend: String, chunks: Int, questions: [Question]) async throws -> [Recall] {
        var figures: [String: Recall] = [:]
        var sweep: [(Double, Bool)] = []
        for question in questions {
            let hits = try await base.searchKnowledge(question.text, in: ["clinic"], limit: 3)
            if let s = hits.first?.similarity { sweep.append((s, hits.first?.chunk.title == question.expected)) }
            var r = figures[question.language] ?? Recall(backend: backend, language: question.language, chunks: chunks, questions: 0, atOne: 0, atThree: 0,
                                                         answeredRight: 0, answeredWrong: 0, passedOn: 0)
            r.questions += 1
            if hits.first?.chunk.title == question.expected { r.atOne += 1 }
            if hits.contains(where: { $0.chunk.title == question.expected }) { r.atThree += 1 }
            switch KnowledgeAnswerPolicy.standard.answer(from: hits) {
            case let answer? where answer.chunk.title == question.expected: r.answeredRight += 1
            case .some: r.answeredWrong += 1
            case nil: r.passedOn += 1
            }
            figures[question.language] = r
        }
        if ProcessInfo.processInfo.environment["KNOWLEDGE_SWEEP"] != nil {
            // How the offline engine's similarity threshold (`KnowledgeAnswerPolicy`) trades answers for wrong ones.
            for hundredths in 80...92 {
                let answered = sweep.filter { $0.0 >= Double(hundredths) / 100 }
                print("\(backend), \(chunks) chunks, similarity ≥ 0.\(hundredths): answered \(answered.count), right \(answered.filter(\.1).count), wrong \(answered.filter { !$0.1 }.count)")
            }
        }
        return figures.values.sorted { $0.language < $1.language }
    }

    static func latency(_ store: KnowledgeBase, backend: String, chunks: Int, questions: [Question], rounds: Int) async throws -> Latency {
        var times: [Double] = []
        for _ in 0..<rounds {
            for question in questions {
                let started = ContinuousClock.now
                _ = try await store.searchKnowledge(question.text, in: ["clinic"], limit: 3)
                times.append(started.duration(to: .now).totalSeconds * 1000)
            }
        }
        times.sort()
        return Latency(backend: backend, chunks: chunks, searches: times.count, p50: times[times.count / 2], p99: times[times.count * 99 / 100])
    }

    /// The FAQ and the filler, each chunk embedded (when there is a model) once for every run:
    /// embedding 10,000 chunks is minutes of one core, and the uploads' embedding is not what is measured.
    struct Corpus {
        var documents: [KnowledgeDocument]
        var filler: [KnowledgeDocument]
        var questions: [Question]
        var embeddings: [[[Float]]]?
        var fillerEmbeddings: [[[Float]]]?

        init(embedder: E5Embedder?) async throws {
            (documents, questions) = try load()
            filler = try KnowledgeBenchmark.filler(count: 10_000 - documents.reduce(0) { $0 + $1.chunks.count }, from: documents)
            guard let embedder else { return }
            var all: [[[Float]]] = []
            for document in documents { all.append(try await KnowledgeBase.embeddings(of: document.chunks, by: embedder)) }
            embeddings = all
            all = []
            for document in filler { all.append(try await KnowledgeBase.embeddings(of: document.chunks, by: embedder)) }
            fillerEmbeddings = all
        }
    }

    static func run(backends: [(name: String, location: String)], corpus: Corpus, embedder: E5Embedder?, wordsWeight: Double) async throws -> (recall: [Recall], latency: [Latency]) {
        let faqChunks = corpus.documents.reduce(0) { $0 + $1.chunks.count }
        var recalls: [Recall] = [], latencies: [Latency] = []
        for (name, location) in backends {
            let base = KnowledgeBase(store: try await CallStore.open(location).knowledge, embedder: embedder, wordsWeight: wordsWeight)
            try await base.store.replace(collection: "clinic", documents: corpus.documents, embeddings: embedder == nil ? nil : corpus.embeddings)
            recalls += try await recall(base, backend: name, chunks: faqChunks, questions: corpus.questions)
            latencies.append(try await latency(base, backend: name, chunks: faqChunks, questions: corpus.questions, rounds: 2))
            try await base.store.replace(collection: "clinic", documents: corpus.filler, embeddings: embedder == nil ? nil : corpus.fillerEmbeddings)
            let chunks = faqChunks + corpus.filler.reduce(0) { $0 + $1.chunks.count }
            recalls += try await recall(base, backend: name, chunks: chunks, questions: corpus.questions)
            latencies.append(try await latency(base, backend: name, chunks: chunks, questions: corpus.questions, rounds: 5))
        }
        return (recalls, latencies)
    }
}

extension BenchMain {
    static func knowledge(output: String) async throws {
        print("== Knowledge: 200 FAQ entries (100 English, 100 Korean), 400 questions in other words; search recall and latency")
        var backends = [(name: "sqlite", location: StoreBackend.temporarySQLitePath())]
        if let postgres = try? await StoreBackend.postgres.newLocation() { backends.append((name: "postgres", location: postgres)) }
        var recall: [KnowledgeBenchmark.Recall] = [], latency: [KnowledgeBenchmark.Latency] = []
        let embedder = try? E5Embedder.shared(in: Fixtures.repository.appendingPathComponent(".deps").path)
        let corpus = try await KnowledgeBenchmark.Corpus(embedder: embedder)
        // Words alone (no model), meaning alone (the server's ranking with the model), and both fused with words at half weight.
        for (mode, model, weight) in [("words", nil, 1.0), ("meaning", embedder, 0.0), ("words + meaning", embedder, 0.5)] where mode == "words" || model != nil {
            let figures = try await KnowledgeBenchmark.run(backends: backends.map { ($0.name + " / " + mode, $0.location) }, corpus: corpus, embedder: model, wordsWeight: weight)
            recall += figures.recall
            latency += figures.latency
            var next: [(name: String, location: String)] = []
            for backend in backends {
                let fresh = backend.name == "sqlite" ? StoreBackend.temporarySQLitePath() : (try? await StoreBackend.postgres.newLocation()) ?? backend.location
                next.append((backend.name, fresh))
            }
            backends = next
        }
        func percent(_ n: Int, _ of: Int) -> String { format(Double(n) * 100 / Double(max(1, of)), digits: 1) + " %" }
        print(table(["store", "language", "chunks", "questions", "recall@1", "recall@3", "local engine: right / wrong / passed on"], recall.map {
            [$0.backend, $0.language, String($0.chunks), String($0.questions), percent($0.atOne, $0.questions), percent($0.atThree, $0.questions),
             "\(percent($0.answeredRight, $0.questions)) / \(percent($0.answeredWrong, $0.questions)) / \(percent($0.passedOn, $0.questions))"]
        }))
        print(table(["store", "chunks", "searches", "p50 ms", "p99 ms"], latency.map {
            [$0.backend, String($0.chunks), String($0.searches), format($0.p50), format($0.p99)]
        }))
        try write(recall.map { ["store": $0.backend, "language": $0.language, "chunks": $0.chunks, "questions": $0.questions,
                                "recall_at_1": Double($0.atOne) / Double($0.questions), "recall_at_3": Double($0.atThree) / Double($0.questions),
                                "local_answered_right": $0.answeredRight, "local_answered_wrong": $0.answeredWrong, "local_passed_on": $0.passedOn] }
                  + latency.map { ["store": $0.backend, "chunks": $0.chunks, "searches": $0.searches, "p50_ms": $0.p50, "p99_ms": $0.p99] },
                  to: output, as: "knowledge.json")
        try await knowledgeSet(embedder: embedder, output: output)
    }
}
