// swift-tools-version: 6.2
import PackageDescription

// Targets, dependencies pointing one way (docs/design/architecture.md draws them):
//   Pipeline (frames, stages, models)  ← Bridge (SIP, RTP, media streams)
//   Tools, Flows ← Analysis;  Tools + Pipeline ← Knowledge
//   Tools + Knowledge + Flows ← Dialogue (the offline dialogue: questions, replies read, results)
//   Dialogue + Pipeline ← Realtime (the engines)
//   Bridge + Realtime ← Simulation (the simulated callee)
//   Tools + Pipeline ← Egress (where the server may connect: the policy and its HTTP client)
//   Bridge + Realtime + Simulation + Egress + … ← Calls (sessions, store, queue, campaigns) ← TestRuns ← API ← voicebridge
//   Calls ← Doctor (`voicebridge doctor`) ← voicebridge; Calls ← Personas (test and bench callees, under Tests/)
//   Telemetry (the OTLP exporter) ← voicebridge; Calls makes a call's spans through swift-distributed-tracing's Tracer
//   TraceContext (the `traceparent` a call's requests carry, and their spans) ← Tools, Egress, Realtime, Calls, API
//   voicebridge-bench and voicebridge-fuzz beside the binary; CSoxr, CEspeakNG, CSRTP, CSpeexDSP: system libraries.
let package = Package(
    name: "VoiceBridge",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "voicebridge", targets: ["voicebridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.36.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Traces over OTLP/HTTP only: the gRPC exporter (and grpc-swift) is not built.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),

        .target(
            name: "Pipeline",
            dependencies: ["CSoxr", "CSpeexDSP"]
        ),
        .target(
            name: "Bridge",
            dependencies: [
                "Pipeline",
                "CSRTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The operator's tools (HTTP, MCP): declarations, argument checks, secrets, the request.
        .target(name: "Tools", dependencies: [
            "Pipeline",
            "TraceContext",
            .product(name: "MCP", package: "swift-sdk"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The operator's documents: reading, chunking, the search terms, the search tool.
        .target(name: "Knowledge", dependencies: ["Tools", "Pipeline", .product(name: "CSV", package: "CSV.swift")]),
        // Conversations that branch: the flow a template holds, its checks, and the walk through it.
        .target(name: "Flows"),
        // What a call comes back with once it ended: data against a schema, success, sentiment, category.
        .target(name: "Analysis", dependencies: ["Tools", "Flows"]),
        // The offline dialogue: what a call asks, how a reply is read, what it gathered. No audio.
        .target(name: "Dialogue", dependencies: ["Tools", "Knowledge", "Flows"]),
        .target(
            name: "Realtime",
            dependencies: [
                "Dialogue",
                "Pipeline",
                "Tools",
                "Knowledge",
                "Flows",
                "CEspeakNG",
                "TraceContext",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The simulated callee: a person on the line, from a script, for tests, test runs and benchmarks.
        .target(name: "Simulation", dependencies: ["Bridge", "Dialogue", "Realtime", "Pipeline", "Knowledge", .product(name: "Logging", package: "swift-log")]),
        // The trace a call's work belongs to, for the requests it makes (W3C `traceparent`, a client span each).
        .target(name: "TraceContext", dependencies: [.product(name: "Tracing", package: "swift-distributed-tracing")]),
        // Where the server may connect out (`egress.allow`), and the HTTP client that holds to it.
        .target(
            name: "Egress",
            dependencies: [
                "Tools",
                "Pipeline",
                "TraceContext",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "Calls",
            dependencies: [
                "Bridge",
                "Dialogue",
                "Realtime",
                "Simulation",
                "Egress",
                "Tools",
                "Knowledge",
                "Flows",
                "Analysis",
                "TraceContext",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Traces to an OTLP collector (`telemetry.otlp_endpoint`): the exporter, bounded, off by default.
        .target(name: "Telemetry", dependencies: [
            .product(name: "OTel", package: "swift-otel"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Test runs (`voicebridge test`, `POST /api/tests`): suites of simulated callees, held
        // against what each call must end with.
        .target(
            name: "TestRuns",
            dependencies: ["Calls", "Dialogue", "Flows", "Realtime", .product(name: "Yams", package: "Yams")]
        ),
        // `voicebridge doctor`: what a server needs before it starts, checked.
        .target(name: "Doctor", dependencies: ["Calls", "Bridge", .product(name: "Logging", package: "swift-log"),
                                               .product(name: "Crypto", package: "swift-crypto")]),   // Crypto: the models' SHA-256
        .target(
            name: "API",
            dependencies: [
                "Calls", "Dialogue", "Egress", "Pipeline", "Tools", "Knowledge", "Flows", "Analysis", "TestRuns", "TraceContext",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "voicebridge",
            dependencies: [
                "Telemetry",
                "API",
                "Calls",
                "Doctor",
                "Simulation",
                "TestRuns",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // `make fuzz`: libFuzzer over the untrusted-input parsers (built with --sanitize fuzzer;
        // a plain build makes an empty program).
        .executableTarget(
            name: "voicebridge-fuzz",
            dependencies: ["Bridge", "Calls", "Knowledge"],
            path: "Fuzz/voicebridge-fuzz"
        ),
        .executableTarget(
            name: "voicebridge-bench",
            dependencies: [
                "Pipeline", "Bridge", "Dialogue", "Realtime", "Calls", "Egress", "Tools", "Knowledge", "Personas", "Telemetry",
                "TestSupport",   // TestSupport: the fixtures, the labelled VAD set, the reference MCP server, the OTLP receiver
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/voicebridge-bench"
        ),

        // The simulated callees: tuning personas (make test) and held-out ones (make bench reports on them).
        .target(name: "Personas", dependencies: ["Calls"], path: "Tests/Personas"),
        .target(name: "TestSupport", dependencies: [
            "Pipeline", "Bridge", "Dialogue", "Realtime", "Telemetry", .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "Logging", package: "swift-log"),
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ], path: "Tests/TestSupport", exclude: ["mcp_reference_server.py", "otlp_receiver.py"]),   // run by python3 from the repository
        // The make-test step each suite runs in, as Swift Testing tags (scripts/test-lanes.py).
        .target(name: "TestLanes", path: "Tests/TestLanes"),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "TestSupport", "TestLanes"]),
        .testTarget(name: "ToolsTests", dependencies: ["Tools", "Pipeline"]),
        .testTarget(name: "KnowledgeTests", dependencies: ["Knowledge", "Tools"]),
        .testTarget(name: "FlowsTests", dependencies: ["Flows"]),
        .testTarget(name: "AnalysisTests", dependencies: ["Analysis", "Flows", "Tools"]),
        .testTarget(name: "BridgeTests", dependencies: [
            "Bridge", "TestSupport", "TestLanes", .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Dialogue", "Realtime"]),
        .testTarget(name: "DialogueTests", dependencies: ["Dialogue", "Tools", "Knowledge", "Flows"]),
        .testTarget(name: "RealtimeTests", dependencies: [
            "Realtime", "Dialogue", "TestSupport", "TestLanes", "Pipeline", "Tools", "Knowledge", "Flows", "Egress", "Calls",   // Egress: the server's tool transport; Calls: the knowledge base
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ]),
        .testTarget(name: "DoctorTests", dependencies: ["Doctor", "Calls"]),
        .testTarget(name: "TestRunsTests", dependencies: ["TestRuns", "Calls", "Dialogue", "Flows", "Realtime", "Personas"]),
        .testTarget(name: "CallsTests", dependencies: ["Calls", "Telemetry", "TraceContext", "Egress", "TestRuns", "TestSupport", "TestLanes", "Personas", "Bridge", "Dialogue", "Realtime", "Simulation", "Pipeline", "Tools", "Knowledge", "Flows", "Analysis",
                                                     .product(name: "MetricsTestKit", package: "swift-metrics"),
                                                     .product(name: "Tracing", package: "swift-distributed-tracing"),
                                                     .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                     .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                     .product(name: "NIOPosix", package: "swift-nio")]),
        .testTarget(
            name: "APITests",
            dependencies: [
                "API", "Dialogue", "Egress", "Knowledge", "TestSupport", "TestLanes", "Flows", "Analysis",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// No compiler warnings: in every target of ours a warning is an error, so a new one fails the
// build (CI's too) instead of hiding among the others. Dependencies keep their own settings.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
