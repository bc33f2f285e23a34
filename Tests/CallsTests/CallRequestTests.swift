import Testing
@testable import Calls

@Suite struct CallRequestTests {
    static let valid = OutboundCallRequest(callerNumber: "+82 10-1234-5678", calleeNumber: "(02) 123.4567", purpose: "  confirm the meeting  ",
                                           questions: ["Can you attend?"])

    @Test func numbersAreNormalizedAndTextTrimmed() throws {
        let request = try Self.valid.validated(maxCallDuration: 300, allowedCallerIDs: [])
        #expect(request.callerNumber == "+821012345678" && request.calleeNumber == "021234567")
        #expect(request.purpose == "confirm the meeting")
    }

    @Test func everyInvalidFieldGetsItsOwnMessage() {
        let request = OutboundCallRequest(callerNumber: "abc", calleeNumber: "12", purpose: " ", questions: [], maxDuration: 9999,
                                          priority: 11, maxRetries: 50, metadata: #"{"simulated_answers": "yes"}"#)
        #expect {
            try request.validated(maxCallDuration: 300, allowedCallerIDs: [])
        } throws: { error in
            let fields = (error as? ValidationError)?.fields.map(\.name) ?? []
            return fields == ["caller_number", "callee_number", "purpose", "questions", "max_duration", "priority", "max_retries", "metadata.simulated_answers"]
        }
    }

    @Test func machineDetectionIsOneOfThreeActionsAndItsMessageIsFilled() throws {
        var request = Self.valid
        request.machineDetection = "sometimes"
        #expect(throws: ValidationError.self) { try request.applying(nil) }
        request.machineDetection = "leave_message"
        request.voicemailMessage = "Hi {name}, {display_name} calling."
        request.variables = ["name": "Tom"]
        #expect(try request.applying(nil).voicemailMessage == "Hi Tom, {display_name} calling.")
        request.voicemailMessage = "Hi {nobody}"
        #expect(throws: ValidationError.self) { try request.applying(nil) }
        var template = CallTemplate(name: "t", purpose: "p", questions: ["q?"])
        template.machineDetection = "hangup"
        request.machineDetection = nil
        request.voicemailMessage = nil
        #expect(try request.applying(template).machineDetection == "hangup")
        template.machineDetection = "maybe"
        #expect(throws: ValidationError.self) { try template.validated(engineModes: ["local"]) }
        request.transferTo = "reception"
        #expect(throws: ValidationError.self) { try request.applying(nil) }
        request.transferTo = "sip:desk@pbx.example.com"
        #expect(try request.applying(nil).transferTo == "sip:desk@pbx.example.com")
    }

    @Test func twentyQuestionsAtMostAndNoneEmpty() {
        var request = Self.valid
        request.questions = Array(repeating: "q?", count: 21)
        #expect(throws: ValidationError.self) { try request.validated(maxCallDuration: 300, allowedCallerIDs: []) }
        request.questions = ["ok?", "  "]
        #expect(throws: ValidationError(fields: [.init(name: "questions", message: "must not contain empty questions")])) {
            try request.validated(maxCallDuration: 300, allowedCallerIDs: [])
        }
    }

    /// Issue 36: every free-text field has a cap (one 60 KB greeting was one espeak synthesis holding its lane).
    @Test func everyFreeTextFieldHasALengthCap() throws {
        var request = Self.valid
        let long = String(repeating: "a", count: 60_000)
        request.greeting = long
        request.closing = long
        request.voice = long
        request.questions = ["Can you attend?", String(repeating: "q", count: TextLimits.question + 1)]
        request.variables = ["name": long]
        request.metadata = #"{"note":""# + long + #""}"#
        #expect {
            try request.validated(maxCallDuration: 300, allowedCallerIDs: [])
        } throws: { error in
            (error as? ValidationError)?.fields.map(\.name) == ["greeting", "closing", "voice", "metadata", "questions.1", "variables.name"]
        }
        request = Self.valid
        request.greeting = String(repeating: "가", count: TextLimits.greeting)
        #expect(try request.validated(maxCallDuration: 300, allowedCallerIDs: []).greeting?.count == TextLimits.greeting, "at the cap is fine")
        var template = CallTemplate(name: "t", purpose: "p", questions: ["q?"])
        template.closing = long
        template.keypad = ["1": long]
        #expect {
            try template.validated(engineModes: ["local"])
        } throws: { error in
            (error as? ValidationError)?.fields.map(\.name) == ["closing", "keypad.1"]
        }
    }

    @Test func callerIDAllowListIsEnforced() throws {
        #expect(throws: ValidationError(fields: [.init(name: "caller_number", message: "is not an allowed caller ID")])) {
            try Self.valid.validated(maxCallDuration: 300, allowedCallerIDs: ["0701234567"])
        }
        _ = try Self.valid.validated(maxCallDuration: 300, allowedCallerIDs: ["+821012345678"])
    }

    @Test func metadataMustBeAnObject() {
        var request = Self.valid
        request.metadata = "[1,2]"
        #expect(throws: ValidationError(fields: [.init(name: "metadata", message: "must be a JSON object")])) {
            try request.validated(maxCallDuration: 300, allowedCallerIDs: [])
        }
    }

    /// Values bound for SIP headers are refused at the boundary if they could start a line.
    @Test func displayNamesAndTransferTargetsCannotCarryLineBreaks() {
        var request = Self.valid
        request.callerDisplayName = "ACME\r\nP-Asserted-Identity: <sip:ceo@x>"
        #expect {
            try request.validated(maxCallDuration: 300, allowedCallerIDs: [])
        } throws: { error in
            (error as? ValidationError)?.fields.map(\.name) == ["caller_display_name"]
        }
        request.callerDisplayName = String(repeating: "가", count: 65)
        #expect(throws: ValidationError.self) { try request.validated(maxCallDuration: 300, allowedCallerIDs: []) }
        request.callerDisplayName = "ACME 고객센터"
        #expect(throws: Never.self) { try request.validated(maxCallDuration: 300, allowedCallerIDs: []) }

        request.transferTo = "sip:desk@pbx.example\r\nX-Evil: 1"
        #expect {
            try request.applying(nil)
        } throws: { error in
            (error as? ValidationError)?.fields.map(\.name) == ["transfer_to"]
        }
    }
}
