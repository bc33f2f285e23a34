import Foundation
import Hummingbird
import HummingbirdTesting
import Dialogue
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `/api/templates` and calls made from them, through the in-process client on a real store.
@Suite(.serialized) struct TemplateAPITests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] { OutboundAPITests.json(buffer) }

    static let reminder = #"""
        {"name":"meeting reminder","purpose":"{name}'s meeting on {date}","questions":["Can you attend on {date}?","Do you need parking, {name}?"],
         "greeting":"Hello {name}, this is {display_name} about {purpose}.","max_duration":90,"max_retries":1,"variables":{"date":"Monday"}}
        """#

    @Test(arguments: StoreBackend.allCases) func editingMakesVersionsAndEveryCallNamesTheOneItRan(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.app.test(.router) { client in
            var id = ""
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.reminder)) { response in
                #expect(response.status == .created)
                let body = Self.json(response.body)
                id = body["id"] as? String ?? ""
                #expect(id.hasPrefix("tp-") && body["version"] as? Int == 1 && response.headers[.location] == "/api/templates/\(id)")
            }
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.reminder)) { response in
                #expect(response.status == .conflict, "names are unique")
            }
            // A call from the template: variables filled (the call's own over the template's defaults).
            var first = ""
            let call = #"{"template":"meeting reminder","caller_number":"070-1234-5678","callee_number":"010-2222-3333","variables":{"name":"Minsu"}}"#
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: call)) { response in
                #expect(response.status == .accepted, "\(String(buffer: response.body))")
                first = Self.json(response.body)["outbound_id"] as? String ?? ""
            }
            try await client.execute(uri: "/api/outbound/\(first)", method: .get) { response in
                let body = Self.json(response.body)
                #expect(body["purpose"] as? String == "Minsu's meeting on Monday")
                #expect(body["questions"] as? [String] == ["Can you attend on Monday?", "Do you need parking, Minsu?"])
                #expect(body["greeting"] as? String == "Hello Minsu, this is {display_name} about {purpose}.", "the conversation fills those two")
                #expect(body["max_duration"] as? Int == 90 && body["max_retries"] as? Int == 1)
                #expect(body["template_id"] as? String == id && body["template_version"] as? Int == 1)
            }
            // Edit: version 2; the first call still names version 1, which stays readable.
            let edited = Self.reminder.replacingOccurrences(of: "Do you need parking, {name}?", with: "Will you bring a guest?")
            try await client.execute(uri: "/api/templates/\(id)", method: .put, headers: [.contentType: "application/json"], body: ByteBuffer(string: edited)) { response in
                #expect(response.status == .ok && Self.json(response.body)["version"] as? Int == 2)
            }
            try await client.execute(uri: "/api/templates/\(id)?version=1", method: .get) { response in
                #expect((Self.json(response.body)["questions"] as? [String])?.last == "Do you need parking, {name}?")
            }
            try await client.execute(uri: "/api/templates/\(id)/versions", method: .get) { response in
                #expect((Self.json(response.body)["items"] as? [[String: Any]])?.map { $0["version"] as? Int } == [1, 2])
            }
            let second = call.replacingOccurrences(of: "010-2222-3333", with: "010-2222-4444").replacingOccurrences(of: #""name":"Minsu""#, with: #""name":"Jisu","date":"Friday""#)
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: second)) { response in
                let created = Self.json(response.body)["outbound_id"] as? String ?? ""
                let stored = try #require(try await h.store.call(id: created))
                #expect(stored.templateVersion == 2 && stored.questions == ["Can you attend on Friday?", "Will you bring a guest?"])
            }
            #expect(try await h.store.call(id: first)?.templateVersion == 1)
            // Deleted: gone from lists and new calls; its versions stay for the calls that ran them.
            try await client.execute(uri: "/api/templates/\(id)", method: .delete) { response in #expect(response.status == .noContent) }
            try await client.execute(uri: "/api/templates", method: .get) { response in
                #expect((Self.json(response.body)["items"] as? [Any])?.isEmpty == true)
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: call.replacingOccurrences(of: "3333", with: "5555"))) { response in
                #expect(response.status == .unprocessableContent)
                #expect((Self.json(response.body)["errors"] as? [[String: Any]])?.first?["message"] as? String == "no template 'meeting reminder'")
            }
            try await client.execute(uri: "/api/templates/\(id)/versions", method: .get) { response in #expect(response.status == .ok) }
        }
    }

    @Test(arguments: StoreBackend.allCases) func aPlaceholderWithoutAValueIsA422NamingIt(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.app.test(.router) { client in
            let template = Self.reminder.replacingOccurrences(of: #""variables":{"date":"Monday"}"#, with: #""variables":{}"#)
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: template)) { response in #expect(response.status == .created) }
            let call = #"{"template":"meeting reminder","caller_number":"070-1234-5678","callee_number":"010-2222-3333","variables":{"name":"Minsu"}}"#
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: call)) { response in
                #expect(response.status == .unprocessableContent)
                let errors = (Self.json(response.body)["errors"] as? [[String: Any]] ?? []).map { "\($0["field"] ?? ""): \($0["message"] ?? "")" }
                #expect(errors == ["purpose: has no value for {date}: give it in `variables`",
                                   "questions.0: has no value for {date}: give it in `variables`"], "\(errors)")
            }
            // Without a template too: a plain call never says "{name}" aloud.
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"caller_number":"0701234","callee_number":"0109999","purpose":"hello {고객명}","questions":["ok?"]}"#)) { response in
                #expect(response.status == .unprocessableContent)
                #expect(String(buffer: response.body).contains("has no value for {고객명}"))
            }
            #expect(try await h.store.page().total == 0)
        }
    }

    /// (Which languages a server holds is `KoreanCallTests`': the local engine's en and ko.)
    @Test func aTemplateForAnotherEngineOrAMalformedLanguageIsRefused() async throws {
        let h = try await OutboundAPITests.harness()   // engine.mode echo, language en
        try await h.app.test(.router) { client in
            for (body, field) in [(#"{"name":"x","purpose":"p","questions":["q?"],"engine_mode":"realtime"}"#, "engine_mode"),
                                  (#"{"name":"x","purpose":"p","questions":["q?"],"language":"Korean"}"#, "language"),
                                  (#"{"name":"x","purpose":"p","questions":["q?"],"menu_path":[{"keys":"2a","wait_seconds":3}]}"#, "menu_path"),
                                  (#"{"name":"x","purpose":"p","questions":["q?"],"languages":["english"]}"#, "languages"),
                                  (#"{"name":"x","purpose":"p","questions":["q?"],"languages":["ko"],"translations":{"ko":{"questions":["하나?","둘?"]}}}"#, "translations.ko.questions"),
                                  (#"{"name":"x","purpose":"p","questions":["q?"],"languages":["ko"],"translations":{"ko":{"questions":["{이름} 님?"]}}}"#, "translations.ko.questions.0")] {
                try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .unprocessableContent)
                    let fields = (Self.json(response.body)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
                    #expect(fields == [field])
                }
            }
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"name":" ","questions":[]}"#)) { response in
                let fields = (Self.json(response.body)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
                #expect(fields == ["name", "purpose", "questions"], "every problem at once")
            }
            try await client.execute(uri: "/api/templates/tp-00000000", method: .get) { response in #expect(response.status == .notFound) }
        }
    }

    /// A known menu path is kept with the template as given (what it does on a call: `PhoneMenuCallTests`).
    @Test(arguments: StoreBackend.allCases) func aMenuPathIsKeptWithTheTemplate(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.app.test(.router) { client in
            let body = #"{"name":"line","purpose":"p","questions":["q?"],"menu_path":[{"keys":"2","wait_seconds":4.5},{"keys":"1#","wait_seconds":0}]}"#
            var id = ""
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                id = Self.json(response.body)["id"] as? String ?? ""
            }
            try await client.execute(uri: "/api/templates/\(id)", method: .get) { response in
                let path = Self.json(response.body)["menu_path"] as? [[String: Any]] ?? []
                #expect(path.map { $0["keys"] as? String } == ["2", "1#"] && path.map { $0["wait_seconds"] as? Double } == [4.5, 0])
            }
        }
    }

    /// `languages` and `translations` are kept with the template, in both databases.
    @Test(arguments: StoreBackend.allCases) func languagesAndTranslationsAreKeptWithTheTemplate(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.app.test(.router) { client in
            let body = #"{"name":"bilingual","purpose":"정기 점검","questions":["오실 수 있나요?"],"language":"ko","languages":["en"],"translations":{"en":{"questions":["Can you come?"],"closing":"Goodbye."}}}"#
            var id = ""
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                id = Self.json(response.body)["id"] as? String ?? ""
            }
            try await client.execute(uri: "/api/templates/\(id)", method: .get) { response in
                let template = Self.json(response.body)
                #expect(template["languages"] as? [String] == ["en"])
                let english = (template["translations"] as? [String: Any])?["en"] as? [String: Any]
                #expect(english?["questions"] as? [String] == ["Can you come?"] && english?["closing"] as? String == "Goodbye.")
            }
            // A call made from it, whose callee answers in English (the whole call: LanguageSwitchCallTests):
            // the languages spoken are kept with its result and shown.
            var callID = ""
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"caller_number":"0212345678","callee_number":"010 7100 0009","template":"bilingual"}"#)) { response in
                #expect(response.status == .accepted, "\(String(buffer: response.body))")
                callID = Self.json(response.body)["outbound_id"] as? String ?? ""
            }
            let template = try #require(try await h.store.template("bilingual"))
            var context = ConversationContext(purpose: template.purpose, questions: template.questions, language: "ko")
            context.languages = ["en"]
            context.translations = template.translations ?? [:]
            var dialogue = ScriptedDialogue(context: context)
            _ = dialogue.start()
            dialogue.speaking("en")
            _ = dialogue.caller(said: "Yes, I can.")
            try await h.store.saveResult(callID: callID, result: ConversationResult(tracker: dialogue.tracker, transcript: [], durationSeconds: 20, context: context))
            for uri in ["/api/outbound/\(callID)", "/api/outbound/\(callID)/result"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(Self.json(response.body)["languages_spoken"] as? [String] == ["ko", "en"], "\(uri): \(String(buffer: response.body))")
                }
            }
            // A campaign of a template whose calls may switch language exports them too: a column
            // (its values, CSV and JSON Lines: CampaignExportTests).
            var campaignID = ""
            let campaign = #"{"name":"bilingual run","template":"bilingual","caller_number":"070-1234-5678"}"#
            try await client.execute(uri: "/api/campaigns", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: campaign)) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                campaignID = Self.json(response.body)["id"] as? String ?? ""
            }
            try await client.execute(uri: "/api/campaigns/\(campaignID)/contacts", method: .post, headers: [.contentType: "text/csv"],
                                     body: ByteBuffer(string: "전화번호\n010-3333-0001\n")) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/api/campaigns/\(campaignID)/results.csv", method: .get) { response in
                let header = String(decoding: response.body.readableBytesView.dropFirst(3), as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
                #expect(header.hasSuffix(",q1_status,q1_answer,languages_spoken,summary,recording_url,outbound_id,skip_reason"), "\(header)")
            }
        }
    }

    /// `noise_suppression` per template and per call, over `engine.noise_suppression` (off here):
    /// kept with the template, copied to its calls, a call's own choice over it, and stored in
    /// both databases. What the switch does to a call's audio is `NoiseSuppressionCallTests`'.
    @Test(arguments: StoreBackend.allCases) func noiseSuppressionIsChosenPerTemplateAndPerCall(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)   // make deps installed DeepFilterNet3
        try await h.app.test(.router) { client in
            let template = #"{"name":"noisy line","purpose":"the visit","questions":["Is Thursday fine?"],"noise_suppression":true}"#
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: template)) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                #expect(Self.json(response.body)["noise_suppression"] as? Bool == true)
            }
            var chosen: [String: Bool?] = [:]
            for (callee, own) in [("010-2222-0001", ""), ("010-2222-0002", #","noise_suppression":false"#)] {
                let call = #"{"template":"noisy line","caller_number":"070-1234-5678","callee_number":"\#(callee)"\#(own)}"#
                try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: call)) { response in
                    #expect(response.status == .accepted, "\(String(buffer: response.body))")
                    let id = Self.json(response.body)["outbound_id"] as? String ?? ""
                    try await client.execute(uri: "/api/outbound/\(id)", method: .get) { detail in
                        chosen[callee] = Self.json(detail.body)["noise_suppression"] as? Bool
                    }
                    chosen[callee + " stored"] = try await h.store.call(id: id)?.noiseSuppression
                }
            }
            #expect(chosen == ["010-2222-0001": true, "010-2222-0001 stored": true, "010-2222-0002": false, "010-2222-0002 stored": false], "\(chosen)")
            let plain = #"{"caller_number":"070-1234-5678","callee_number":"010-2222-0003","purpose":"p","questions":["q?"]}"#
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: plain)) { response in
                let id = Self.json(response.body)["outbound_id"] as? String ?? ""
                let stored = try #require(try await h.store.call(id: id))
                #expect(stored.noiseSuppression == nil, "a call that does not say follows engine.noise_suppression when it runs")
            }
        }
    }

    /// A server without the suppressor refuses a template or call that asks for it, by field.
    @Test func askingForNoiseSuppressionWhereItIsNotInstalledIsRefused() async throws {
        let h = try await OutboundAPITests.harness { $0.engine.local.moonshinePath = Fixtures.repository.appendingPathComponent("nowhere/moonshine").path }
        try await h.app.test(.router) { client in
            for (uri, body) in [("/api/templates", #"{"name":"x","purpose":"p","questions":["q?"],"noise_suppression":true}"#),
                                ("/api/outbound/", #"{"caller_number":"0701234","callee_number":"0109999","purpose":"p","questions":["q?"],"noise_suppression":true}"#)] {
                try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .unprocessableContent, "\(uri)")
                    let errors = (Self.json(response.body)["errors"] as? [[String: Any]] ?? []).map { "\($0["field"] ?? ""): \($0["message"] ?? "")" }
                    #expect(errors == ["noise_suppression: noise suppression is not installed on this server (make deps installs DeepFilterNet3)"], "\(uri): \(errors)")
                }
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"caller_number":"0701234","callee_number":"0109999","purpose":"p","questions":["q?"],"noise_suppression":false}"#)) { response in
                #expect(response.status == .accepted, "off needs nothing installed")
            }
        }
    }
}
