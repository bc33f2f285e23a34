import ArgumentParser
import Calls
import Foundation
import Logging
import Realtime
import ServiceLifecycle
import Simulation

struct SimulateCalleeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-callee",
        abstract: "Run the simulated callee on its own: it rings, answers and speaks scripted answers (espeak-ng)."
    )

    @Option(name: .long, help: "SIP port to listen on.") var port: Int = 5070
    @Option(name: .long, help: "Address to bind (loopback by default).") var host = "127.0.0.1"
    @Option(name: .long, help: "RTP port range, e.g. 21000-21999.") var rtpPorts = "21000-21999"
    @Option(name: .long, help: "espeak-ng voice.") var voice = "en-us"
    @Option(name: .long, help: "Moonshine folder: with it the callee hears the agent, confirms read-backs and repeats itself when asked again.")
    var moonshinePath = ".deps/moonshine"

    func run() async throws {
        let logger = Logger(label: "simulated-callee")
        let bounds = rtpPorts.split(separator: "-").compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] < bounds[1] else { throw ValidationError("--rtp-ports must look like 21000-21999") }
        let recognizer = try? MoonshineTranscriber(directory: moonshinePath)
        if recognizer == nil { logger.warning("no Moonshine in \(moonshinePath): the callee says its lines in order without listening") }
        let callee = try SimulatedCallee(host: host, port: port, rtpPorts: bounds[0]...bounds[1], tts: try EspeakSynthesizer(voice: voice),
                                         hearing: recognizer.map(SimulatedCallee.hearing), logger: logger)
        let bound = try await callee.start()
        logger.info("simulated callee listening", metadata: ["sip": "\(host):\(bound)"])
        let group = ServiceGroup(configuration: .init(services: [CalleeService(callee: callee)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

struct CalleeService: Service {
    let callee: SimulatedCallee
    func run() async throws { await cancelWhenGracefulShutdown { await callee.run() } }
}
