import AsyncHTTPClient
import Egress
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import Calls
import Tools

/// Issue 36: outbound connections go only where the operator allowed.
@Suite struct EgressPolicyTests {
    static let refused = ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                          "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1",
                          "::1", "::", "fe80::1", "fd00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1"]
    static let publicAddresses = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]

    @Test func addressesOutsideThePublicInternetAreRefusedUnlessAllowed() throws {
        let policy = EgressPolicy()
        for text in Self.refused {
            #expect(!policy.permits(try #require(IPAddressBytes(parsing: text))), "\(text) refused")
        }
        for text in Self.publicAddresses {
            #expect(policy.permits(try #require(IPAddressBytes(parsing: text))), "\(text) allowed")
        }
        let office = EgressPolicy(allowed: [try #require(IPNetwork("10.20.0.0/16")), try #require(IPNetwork("fd00::5"))])
        #expect(office.permits(IPAddressBytes(parsing: "10.20.3.4")!) && office.permits(IPAddressBytes(parsing: "::ffff:10.20.3.4")!))
        #expect(!office.permits(IPAddressBytes(parsing: "10.21.0.1")!) && office.permits(IPAddressBytes(parsing: "fd00::5")!))
        #expect(!office.permits(IPAddressBytes(parsing: "fd00::6")!) && !office.permits(IPAddressBytes(parsing: "127.0.0.1")!))
        let local = EgressPolicy(allowsLoopback: true)
        #expect(local.permits(IPAddressBytes(parsing: "127.0.0.1")!) && local.permits(IPAddressBytes(parsing: "::1")!))
        #expect(!local.permits(IPAddressBytes(parsing: "169.254.169.254")!) && !local.permits(IPAddressBytes(parsing: "192.168.0.1")!))
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("example.com/8") == nil && IPNetwork("::/129") == nil)
    }

    @Test func namesAreCheckedAfterResolutionAndLiteralsWithout() async throws {
        await #expect(throws: EgressPolicy.Refusal.self) { try await EgressPolicy().destination(host: "localhost", port: 80) }
        await #expect(throws: EgressPolicy.Refusal.self) { try await EgressPolicy().destination(host: "[::1]", port: 80) }
        let local = try await EgressPolicy(allowsLoopback: true).destination(host: "localhost", port: 8080)
        #expect(local.port == 8080 && ["127.0.0.1", "::1"].contains(local.ipAddress ?? ""), "\(local)")
        let url = try await EgressPolicy().destination(of: OutboundURL("https://93.184.216.34/hook"))
        #expect(url.ipAddress == "93.184.216.34" && url.port == 443)
    }

    /// A one-response HTTP server on 127.0.0.1 that counts the connections it is given.
    final class CountingServer: Sendable {
        final class Counter: Sendable { let value = Atomic<Int>(0) }
        let channel: any Channel
        let counter = Counter()
        var port: Int { channel.localAddress!.port! }
        var connections: Int { counter.value.load(ordering: .relaxed) }

        init(response: String) async throws {
            let counter = counter
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { child in child.pipeline.addHandler(Reply(response: response, counter: counter)) }
                .bind(host: "127.0.0.1", port: 0).get()
        }

        final class Reply: ChannelInboundHandler, Sendable {
            typealias InboundIn = ByteBuffer
            typealias OutboundOut = ByteBuffer
            let response: String
            let counter: Counter
            init(response: String, counter: Counter) {
                self.response = response
                self.counter = counter
            }
            func channelActive(context: ChannelHandlerContext) {
                counter.value.add(1, ordering: .relaxed)
                context.fireChannelActive()
            }
            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                // Connection: close in the answer; the client closes after reading it.
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
            }
        }
    }

    @Test func requestsGoOnlyWhereThePolicyAllowsAndRedirectsAreNotFollowed() async throws {
        let redirect = try await CountingServer(response: "HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { redirect.channel.close(promise: nil) }
        var request = HTTPClientRequest(url: "http://localhost:\(redirect.port)/hook")
        request.method = .POST
        await #expect(throws: EgressPolicy.Refusal.self, "loopback is refused by default") {
            try await EgressHTTPClient(policy: EgressPolicy()).send(request, timeout: .seconds(5))
        }
        #expect(redirect.connections == 0, "refused before connecting")
        let answer = try await EgressHTTPClient(policy: EgressPolicy(allowsLoopback: true)).send(request, timeout: .seconds(5))
        #expect(answer.status == 302 && redirect.connections == 1, "the redirect is the answer, not followed")
        // A closed port and a dropped connection read the same (the client retries a refused
        // connection until the deadline, so a short one).
        let closed = try await CountingServer(response: "")
        let closedPort = closed.port
        try await closed.channel.close()
        await #expect(performing: {
            try await EgressHTTPClient(policy: EgressPolicy(allowsLoopback: true)).send(HTTPClientRequest(url: "http://127.0.0.1:\(closedPort)/"), timeout: .milliseconds(500))
        }, throws: { !"\($0)".lowercased().contains("refused") && !"\($0)".contains("ECONN") })
    }

    @Test func transferTargetsAreTheGatewaysOrTheListed() throws {
        let open = TransferTargetPolicy()
        #expect(open.refusal("+821012345678", gatewayHost: "trunk.example.com") == nil)
        #expect(open.refusal("sip:desk@trunk.example.com:5060", gatewayHost: "trunk.example.com") == nil)
        #expect(open.refusal("sip:desk@evil.example", gatewayHost: "trunk.example.com") != nil)
        #expect(open.refusal("sip:desk@trunk.example.com", gatewayHost: nil) != nil)
        let listed = TransferTargetPolicy(rules: ["+8210*", "sip:*@pbx.example.com", "sip:desk@10.0.0.5"].compactMap(TransferTargetRule.init),
                                          configuredTarget: "+15550100")
        #expect(listed.rules.count == 3)
        #expect(listed.refusal("010-1234-5678", gatewayHost: "trunk.example.com") != nil, "compared as written today; canonical numbers are item 6")
        #expect(listed.refusal("+821012345678", gatewayHost: nil) == nil && listed.refusal("+822012345678", gatewayHost: nil) != nil)
        #expect(listed.refusal("sip:anyone@PBX.example.com", gatewayHost: nil) == nil && listed.refusal("sip:desk@10.0.0.5", gatewayHost: nil) == nil)
        #expect(listed.refusal("sip:desk@10.0.0.6", gatewayHost: nil) != nil && listed.refusal("+15550100", gatewayHost: nil) == nil)
        #expect(TransferTargetRule("sip:*@") == nil && TransferTargetRule("12a*") == nil)
    }

    /// Review 2, finding 2: the host is read by the SIP stack's own parser, and only the plain form
    /// it writes out unchanged is taken, so no text can show the check one host and the trunk another.
    @Test func aTransferTargetIsReadAsTheSIPStackReadsIt() throws {
        let open = TransferTargetPolicy()
        for probe in ["sip:desk@evil.example;x=@trunk.example.com", "sip:desk@evil.example?x=@trunk.example.com",
                      "sip:desk@evil.example;transport=tcp", "sip:a@b@trunk.example.com", "sip:desk%40evil.example@trunk.example.com",
                      "sips:desk@trunk.example.com", "sip:desk@trunk.example.com:0", "sip:@trunk.example.com", "sip:desk@trunk example.com"] {
            #expect(VoiceBridgeConfig.transferTargetProblem(probe) != nil || open.refusal(probe, gatewayHost: "trunk.example.com") != nil, "\(probe)")
        }
        #expect(VoiceBridgeConfig.transferTargetProblem("sip:desk@evil.example;x=@trunk.example.com")?.contains("no parameters") == true)
        for plain in ["sip:desk@trunk.example.com", "sip:desk@trunk.example.com:5070", "sip:+821012345678@trunk.example.com", "sip:trunk.example.com"] {
            let uri = try #require(VoiceBridgeConfig.sipTarget(plain), "\(plain)")
            #expect(uri.description == plain && uri.host == "trunk.example.com")
            #expect(VoiceBridgeConfig.transferTargetProblem(plain) == nil && open.refusal(plain, gatewayHost: "trunk.example.com") == nil)
        }
        #expect(VoiceBridgeConfig.sipTarget("sip:desk@[2001:db8::1]:5060")?.host == "[2001:db8::1]")
    }

    /// The blocks the second review found missing, refused like the rest.
    @Test func deprecatedAndLocalIPv6BlocksAreRefused() throws {
        for text in ["::1.2.3.4", "64:ff9b:1::a00:1", "fec0::1", "100::1", "2001:db8::5"] {
            #expect(!EgressPolicy().permits(try #require(IPAddressBytes(parsing: text))), "\(text)")
        }
    }

    /// A refusal reaches API users: a name's refusal says what kind of address it resolves to, not which.
    @Test func aRefusalDoesNotSayWhatANameResolvesTo() async throws {
        do {
            _ = try await EgressPolicy().destination(host: "localhost", port: 80)
            Issue.record("localhost was allowed")
        } catch let refusal as EgressPolicy.Refusal {
            #expect(refusal.description.contains("resolves to a loopback") && !refusal.description.contains("127.0.0.1") && !refusal.description.contains("::1"),
                    "\(refusal)")
        }
    }
}
