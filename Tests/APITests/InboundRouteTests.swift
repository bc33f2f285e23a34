import Dialogue
import Foundation
import Logging
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `inbound.routes`: the called number picks who answers; a route naming a template the database
/// does not hold stops the server at start-up. (A route to a bot runs end to end in
/// Tests/e2e/suite-bot.sh, behind sipp.)
@Suite(.serialized) struct InboundRouteTests {
    static func config(routes: [VoiceBridgeConfig.Inbound.Route]) -> VoiceBridgeConfig {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        config.inbound.routes = routes
        return config
    }

    static func route(_ number: String, _ body: (inout VoiceBridgeConfig.Inbound.Route) -> Void) -> VoiceBridgeConfig.Inbound.Route {
        var route = VoiceBridgeConfig.Inbound.Route(number: number)
        body(&route)
        return route
    }

    @Test func aRouteNamingAnUnknownTemplateStopsStartUp() async throws {
        let config = Self.config(routes: [Self.route("+15550100") { $0.template = "nope" }])
        let store = try CallStore(path: config.database.path)
        await #expect {
            _ = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
        } throws: { error in
            "\(error)".contains("inbound.routes.+15550100.template: no template 'nope'")
        }
    }

    @Test func theCalledNumberPicksTheProfile() async throws {
        let config = Self.config(routes: [
            Self.route("+1 555 0101") { $0.template = "dental"; $0.displayName = "Dr. Kim's office" },
            Self.route("+15550102") { $0.botURL = "wss://bot.example.com/twilio"; $0.questions = ["Who is calling?"] },
        ])
        let store = try CallStore(path: config.database.path)
        let template = try await store.createTemplate(CallTemplate(name: "dental", purpose: "a check-up for {name}", questions: ["When can {name} come?"],
                                                             greeting: "Dr. Kim's office, about {purpose}.", variables: ["name": "you"]))
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))

        let dental = await calls.manager.inboundRecord(caller: "0101234", callee: "15550101")
        #expect(dental.purpose == "a check-up for you" && dental.questions == ["When can you come?"])
        #expect(dental.greeting == "Dr. Kim's office, about {purpose}." && dental.callerDisplayName == "Dr. Kim's office")
        #expect(dental.templateId == template.id && dental.templateVersion == 1 && dental.botUrl == nil)
        #expect(dental.direction == .inbound && dental.calleeNumber == "15550101")
        #expect(!dental.retryOnNoAnswer && dental.maxRetries == 0, "an inbound call carries no retry policy")

        let bot = await calls.manager.inboundRecord(caller: "0101234", callee: "+15550102")
        #expect(bot.botUrl == "wss://bot.example.com/twilio" && bot.questions == ["Who is calling?"] && bot.purpose == config.inbound.purpose)
        let context = await calls.manager.context(for: bot)
        #expect(context.botURL == "wss://bot.example.com/twilio" && context.call.to == "+15550102" && context.call.direction == "inbound")

        let other = await calls.manager.inboundRecord(caller: "0101234", callee: "0200000000")
        #expect(other.purpose == config.inbound.purpose && other.questions == config.inbound.questions && other.botUrl == nil && other.templateId == nil)
        let otherContext = await calls.manager.context(for: other)
        #expect(other.language == nil && otherContext.greetingTemplate == config.inbound.greeting)
    }

    /// A line routed to a Korean template is answered in Korean: the call takes the template's
    /// language, and the shipped inbound greeting is said in it (an operator's own greeting is
    /// kept as written). The caller may switch to the template's other languages.
    @Test func aRouteToAKoreanTemplateAnswersInKorean() async throws {
        let config = Self.config(routes: [Self.route("+82 2 555 0103") { $0.template = "예약" }])
        let store = try CallStore(path: config.database.path)
        var template = CallTemplate(name: "예약", purpose: "예약 접수", questions: ["성함이 어떻게 되세요?"], language: "ko")
        template.languages = ["en"]
        template.translations = ["en": ConversationTranslation(questions: ["May I have your name?"])]
        _ = try await store.createTemplate(template)
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
        let call = await calls.manager.inboundRecord(caller: "01012345678", callee: "025550103")
        #expect(call.language == "ko")
        let context = await calls.manager.context(for: call)
        #expect(context.language == "ko" && context.greetingTemplate == DialoguePhrases.korean.inboundGreeting, "\(context.greetingTemplate)")
        #expect(context.languages == ["en"] && context.translations["en"]?.questions == ["May I have your name?"])

        var own = Self.config(routes: [Self.route("+82 2 555 0103") { $0.template = "예약" }])
        own.inbound.greeting = "{display_name}입니다."
        let ownCalls = try await CallSystem.start(config: own, store: store, logger: Logger(label: "test"))
        let greeted = await ownCalls.manager.context(for: await ownCalls.manager.inboundRecord(caller: "01012345678", callee: "025550103"))
        #expect(greeted.greetingTemplate == "{display_name}입니다.", "the operator's greeting as written")
    }
}
