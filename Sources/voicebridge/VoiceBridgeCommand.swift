import ArgumentParser
import Calls

@main
struct VoiceBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicebridge",
        abstract: "AI voice agents on phone calls: SIP and Twilio media streams in, a conversation engine behind.",
        version: VoiceBridgeVersion.current,
        subcommands: [ServeCommand.self, CallCommand.self, CampaignCommand.self, TestCommand.self, SimulateCalleeCommand.self, RekeyCommand.self, DoctorCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
