import Bridge
import Dialogue
import Egress
import Foundation
import Realtime
import Tools

/// The whole server configuration, with the defaults `make run` uses.
///
/// Read with `VoiceBridgeConfig.load(path:environment:)`; `config/voicebridge.example.yaml` documents
/// every key. Values are validated as they are read: a config that loads is a config that runs.
public struct VoiceBridgeConfig: Sendable, Equatable {
    public struct HTTP: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// The public base URL providers reach us at (TwiML stream URLs, signature checks), e.g.
        /// `https://voice.example.com`. Empty: derived from host and port.
        public var publicURL: String?
        /// Folder with the dashboard's static files.
        public var webRoot = "web"
        /// Host names requests may carry besides loopback ones, `host` and `publicURL`'s (a LAN
        /// name, the address a proxy forwards to): any other Host is refused (DNS rebinding).
        public var allowedHosts: [String] = []
        /// After SIGTERM or SIGINT, how long a graceful shutdown may take before the watchdog
        /// prints every thread's stack and exits with status 70 (a stuck server still stops).
        public var shutdownTimeoutSeconds = 30
        /// A connection that has not sent a whole request head this long after it opened is closed.
        public var headerTimeoutSeconds = 10
        /// A request body must come at least this fast, measured over windows of the header
        /// timeout, or the connection is closed (a body dripped a byte a second holds nothing).
        public var minBodyBytesPerSecond = 1024
        /// A kept-alive connection with no request this long is closed.
        public var idleTimeoutSeconds = 60
        /// Connections at once, in all and from one address (media streams count: a provider's
        /// media servers send many calls from a few addresses).
        public var maxConnections = 2048
        public var maxConnectionsPerAddress = 256
    }

    public struct API: Sendable, Equatable {
        /// The shortest bearer token the configuration accepts.
        public static let minimumTokenLength = 16
        /// Bearer tokens accepted by the REST and event API. Empty: no auth, loopback only.
        public var tokens: [String] = []
        public var callCreationsPerMinute = 30
    }

    public struct Database: Sendable, Equatable {
        /// The SQLite file (one node, or several on one host).
        public var path = "./data/voicebridge.sqlite"
        /// `postgres://user:password@host:5432/database`: PostgreSQL, which every node of a cluster
        /// names; it replaces `path`.
        public var url: String?
        /// Where call recordings are written; nil: `recordings/` beside the SQLite file. With
        /// several hosts, a folder every node mounts at the same path (NFS, …): the database
        /// stores each recording's path, and any node serves it from there.
        public var recordingsFolder: String?

        /// What `CallStore.open` takes: the URL, or else the file.
        public var location: String { url ?? path }

        /// The database as logs and messages name it (a URL without its password).
        public var displayName: String { url.flatMap { try? PostgresStoreDatabase.Location(url: $0).address } ?? path }

        public var recordings: String {
            recordingsFolder ?? ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("recordings")
        }
    }

    /// Several nodes sharing one database: each is known by its id, and holds a lease it renews.
    public struct Cluster: Sendable, Equatable {
        /// Empty: the host name and the HTTP port, so a restarted node is the same node again.
        public var nodeID = ""
        /// A node silent this long is taken for dead: another node ends its calls as `node_lost`.
        public var leaseSeconds = 15.0

        /// This node's id: the configured one, or `host:port` (with a port picked at start, the
        /// process id too: two such nodes on one host must not share an id).
        public func resolvedNodeID(httpPort: Int) -> String {
            guard nodeID.isEmpty else { return nodeID }
            let host = ProcessInfo.processInfo.hostName
            return httpPort == 0 ? "\(host):0-\(ProcessInfo.processInfo.processIdentifier)" : "\(host):\(httpPort)"
        }
    }

    /// Encryption at rest: with a key, what calls said and produced is sealed before it is stored.
    public struct Storage: Sendable, Equatable {
        /// 32 bytes: the key that seals (`storage.encryption_key`, or a file holding it).
        public var encryptionKey: Data?
        /// Older keys that still open what they sealed, until `voicebridge rekey` has rewritten it.
        public var previousEncryptionKeys: [Data] = []

        public var cipher: StorageCipher? { encryptionKey.map { StorageCipher(currentKey: $0, previousKeys: previousEncryptionKeys) } }
    }

    public struct SIP: Sendable, Equatable {
        public var bind = "127.0.0.1"
        /// Address written into Contact, Via and SDP; empty means the bind address.
        public var advertisedAddress: String?
        public var port = 5060
        public var rtpPortMin = 20000
        public var rtpPortMax = 20999
        /// Outbound gateway `sip:host:port`. None: calls go to the built-in simulated callee.
        public var gateway: String?
        /// The gateway is a simulated callee (`voicebridge simulate-callee`): each call's
        /// `metadata.simulated_answers` goes to it in an `X-Simulated-Answers` header, as to the
        /// built-in one. Off by default: to a real trunk the header would carry the call's metadata.
        public var gatewayIsSimulatedCallee = false
        /// The simulated callee's voice: `piper` (Piper's en_US-joe-medium, `make deps`; espeak-ng's
        /// when it is not installed) or `espeak`.
        public var simulatedCalleeVoice = SimulatedCalleeVoice.piper
        public enum SimulatedCalleeVoice: String, Sendable, CaseIterable { case piper, espeak }
        public var username: String?
        public var password: String?
        public var allowedCallerIDs: [String] = []
        public var maxInboundCalls = 20
        public var mediaTimeoutSeconds = 30
        /// Out-of-dialog requests per second one source address may send (0: no limit), the burst
        /// allowed after a quiet spell, and addresses exempt (a proxy or trunk speaking for many).
        public var rateLimitPerSecond = 50.0
        public var rateLimitBurst = 100.0
        public var rateLimitExempt: [String] = []
        /// `udp`, `tcp` or `tls` (then `tlsCertificate` and `tlsPrivateKey` are PEM files).
        public var transport = SIPTransportKind.udp
        public var tlsCertificate: String?
        public var tlsPrivateKey: String?
        /// Authorities trusted for peers' certificates; the system's when nil.
        public var tlsCAFile: String?
        /// SRTP for call media: `off`, `optional`, `required`.
        public var srtp = SRTPMode.off

        /// The TLS files the SIP user agent uses, when the transport is TLS.
        public var tlsFiles: SIPStreamTransport.TLSFiles? {
            guard transport == .tls, let tlsCertificate, let tlsPrivateKey else { return nil }
            return .init(certificateChain: tlsCertificate, privateKey: tlsPrivateKey, trustedAuthorities: tlsCAFile)
        }
    }

    public struct Twilio: Sendable, Equatable {
        /// The account's primary auth token: checks every webhook's signature, and authenticates
        /// REST calls when no API key is set.
        public var authToken: String?
        /// `AC…`: the account outbound calls are placed on (`carrier: twilio`).
        public var accountSID: String?
        /// An API key (`SK…`) and its secret for the REST calls, instead of the auth token.
        public var apiKey: String?
        public var apiSecret: String?
        /// Twilio's `From`; empty: each call's caller number (a Twilio number or verified caller ID).
        public var fromNumber: String?
        public var apiBaseURL = "https://api.twilio.com"
        /// Asynchronous answering-machine detection on outbound calls (billed by Twilio): fills `answered_by`.
        public var machineDetection = false
    }


    /// The knowledge base (`/api/knowledge`).
    public struct Knowledge: Sendable, Equatable {
        public enum Embeddings: String, Sendable, CaseIterable { case auto, local, off }
        /// `local`: chunks and questions are embedded offline (multilingual-e5-small, `make deps`)
        /// and searched by meaning as well as by words; `off`: words only; `auto`: `local` when installed.
        public var embeddings: Embeddings = .auto
    }

    /// Outbound connections made for what API users and callers supply (bot URLs, webhooks,
    /// Twilio's API base): the blocks allowed although they are not public.
    public struct Egress: Sendable, Equatable {
        public var allow: [IPNetwork] = []
    }

    /// Signed event notifications (`webhooks.*`): endpoints from the file, plus those made over the API.
    public struct Webhooks: Sendable, Equatable {
        public struct Endpoint: Sendable, Equatable {
            /// The key under `webhooks.endpoints`; the endpoint's id.
            public var name: String
            public var url: String
            /// `whsec_` + base64 of 24–64 random bytes.
            public var secret: String
            /// Event types to deliver; empty: all.
            public var events: [String] = []
        }

        public var endpoints: [Endpoint] = []
        /// Seconds before the 2nd, 3rd, … attempt (± 20 % jitter); the default spans about three days.
        public var retrySchedule: [Double] = WebhookRetryPolicy.standardSchedule
        public var timeoutSeconds: Double = 15
        public var concurrency = 4
    }

    /// Who places outbound calls: the SIP gateway (or the simulated callee), or Twilio's REST API.
    public enum Carrier: String, Sendable, CaseIterable {
        case sip, twilio
    }

    public struct Outbound: Sendable, Equatable {
        public var maxConcurrentCalls = 5
        /// Campaign dials per minute on this node, all running campaigns together: the budget
        /// campaigns spend instead of `api.call_creations_per_minute` (a campaign's own
        /// `calls_per_minute` paces it within this).
        public var campaignCallsPerMinute = 600
        public var ringTimeoutSeconds = 30
        public var maxCallDurationSeconds = 300
        public var retry = Retry()
        public var ai = AI()
        public var result = Result()
        public var machineDetection = MachineDetection()

        /// Answering-machine detection on SIP calls (a call or template may ask otherwise).
        public struct MachineDetection: Sendable, Equatable {
            public enum Action: String, Sendable, CaseIterable {
                /// No detection: the agent greets at once.
                case off
                /// A machine: hang up (`voicemail`, retried like `no_answer`).
                case hangup
                /// A machine: wait for its beep or the end of its greeting, say the message, hang up (`voicemail_left`).
                case leaveMessage = "leave_message"
            }

            public var action: Action = .off
            /// The longest the agent's greeting waits for a verdict.
            public var holdGreetingMs = 3500
            /// A first greeting with more speech than this is a machine's (Twilio's `MachineDetectionSpeechThreshold`).
            public var speechThresholdMs = 2400
            /// `leave_message`'s words; `{display_name}` and `{purpose}` are filled.
            public var message = "Hello, this is the AI assistant of {display_name}, calling about {purpose}. We will call again later. Thank you."
        }

        public enum RetryReason: String, Sendable, CaseIterable {
            case noAnswer = "no_answer", busy, rejected, failed
        }

        public struct Retry: Sendable, Equatable {
            public var enabled = true
            public var maxRetries = 2
            public var retryIntervalSeconds = 300
            public var retryOn: [RetryReason] = [.noAnswer, .busy]
        }

        public struct AI: Sendable, Equatable {
            public var greetingTemplate = "Hello, this is the AI assistant of {display_name}, calling about {purpose}."
            public var closingTemplate = "Thank you for your time. Have a nice day."
            public var maxTurns = 20
        }

        public struct Result: Sendable, Equatable {
            public var saveTranscript = true
            public var saveRecording = true
            public var generateSummary = true
        }
    }

    public struct Inbound: Sendable, Equatable {
        /// Left as it ships, a call in another language greets with that language's (`DialoguePhrases.inboundGreeting`).
        public var greeting = DialoguePhrases.english.inboundGreeting
        public var displayName = "VoiceBridge"
        public var purpose = "take a message"
        public var questions = ["May I have your name?", "What is the reason for your call?", "What number can we call you back on?"]
        /// The called number (SIP Request-URI user, Twilio `To`) → who answers it; a number with no
        /// route gets the settings above.
        public var routes: [Route] = []

        /// One number's answering: a bot, or the agent with its own template and lines. What a
        /// route leaves out comes from its template, then from the inbound defaults.
        public struct Route: Sendable, Equatable {
            public var number: String
            public var botURL: String?
            /// A stored template's id or name: purpose, questions, greeting, voice, bot.
            public var template: String?
            public var greeting: String?
            public var displayName: String?
            public var purpose: String?
            public var questions: [String]?

            public init(number: String) { self.number = number }
        }

        /// The route for a called number: the same number in E.164, or the same digits (`+` and
        /// punctuation ignored — a SIP trunk may send the number without its `+`).
        public func route(for called: String, numbers: NumberPlan = .korea) -> Route? {
            let digits = called.filter(\.isNumber)
            let canonical = numbers.canonical(called)
            return routes.first {
                !digits.isEmpty && ($0.number.filter(\.isNumber) == digits || (canonical != nil && numbers.canonical($0.number) == canonical))
            }
        }
    }

    /// Who may open a media-stream WebSocket (`/twilio/stream`, `/telnyx/stream`, …): each
    /// `start` runs the engine and stores a call, so no endpoint is open to anyone on a server
    /// that listens beyond this machine.
    public struct MediaStreams: Sendable, Equatable {
        /// The secret a provider's stream URL carries as `?token=` (the operator writes it into
        /// the URL given to Telnyx, Plivo, Exotel — or Twilio when no auth token signs its
        /// upgrades). Compared in constant time, never logged.
        public var token: String?
        /// The dialects accepted at all; empty: every dialect that can be authenticated.
        public var dialects: [MediaStreamDialect] = []
        /// A stream that has not sent `start` this long after its upgrade is closed: an open
        /// socket that never becomes a call holds a connection and a task for nothing.
        public var startTimeoutSeconds = 10
    }

    /// Traces of the calls to an OpenTelemetry collector (`telemetry.*`).
    public struct Telemetry: Sendable, Equatable {
        /// The collector's OTLP/HTTP traces URL (`http://collector:4318/v1/traces`); nil: no traces.
        public var otlpEndpoint: String?
        /// `service.name` on every span.
        public var serviceName = "voicebridge"
    }

    public var http = HTTP()
    public var api = API()
    public var telemetry = Telemetry()
    public var database = Database()
    public var cluster = Cluster()
    public var storage = Storage()
    public var sip = SIP()
    public var engine = Engine()
    public var twilio = Twilio()
    public var mediaStreams = MediaStreams()
    public var audioSocket = AudioSocket()
    public var carrier: Carrier = .sip
    public var outbound = Outbound()
    public var inbound = Inbound()
    public var pricing = Pricing()
    public var webhooks = Webhooks()
    public var transfer = Transfer()
    public var knowledge = Knowledge()
    public var analysis = Analysis()
    public var egress = Egress()
    /// Values the operator's tools name in their headers (`${secret:crm_token}`): `secrets.<name>`.
    public var secrets: [String: ToolSecret] = [:]
    /// How numbers written without `+` are read (`numbers.default_country`, ISO 3166 code).
    public var numbers = NumberPlan.korea

    public init() {}
}
