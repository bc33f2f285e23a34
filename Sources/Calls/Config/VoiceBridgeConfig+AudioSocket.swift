import Egress
import NIOCore

extension VoiceBridgeConfig {
    /// Asterisk's AudioSocket (`audiosocket.*`): where the server listens for it, and who may connect.
    public struct AudioSocket: Sendable, Equatable {
        /// The address and port Asterisk's `AudioSocket(uuid,host:port)` connects to; nil: off.
        public var listen: Listen?
        public struct Listen: Sendable, Equatable {
            public var host: String
            public var port: Int

            public init(host: String, port: Int) {
                self.host = host
                self.port = port
            }
        }
        /// The peers that may connect (a PBX's addresses or blocks). AudioSocket carries no
        /// credential — its one field is the call's UUID — so the peer's address is what admits it;
        /// listening with none allowed is refused at start.
        public var allowedPeers: [IPNetwork] = []
        /// Whether a connection must name a UUID the dialplan got from `POST /api/audiosocket/calls`
        /// (which also gives the call its numbers); false: an unannounced UUID is an inbound call
        /// from `unknown`.
        public var requireBinding = false

        /// Whether a connection from `address` may become a call.
        public func allows(_ address: SocketAddress) -> Bool {
            guard let peer = IPAddressBytes(address) else { return false }
            return allowedPeers.contains { $0.contains(peer) }
        }
    }

    static func readAudioSocket(_ a: inout AudioSocket, _ r: inout ConfigReader) throws {
        let peers = try r.list("audiosocket.allowed_peers", default: [])
        a.allowedPeers = try peers.map { text in
            guard let network = IPNetwork(text) else {
                throw ConfigError(key: "audiosocket.allowed_peers", problem: "'\(text)' is not an address or a block (10.0.0.5, 10.0.0.0/24, fd00::/8)",
                                  origin: r.origin(of: "audiosocket.allowed_peers"))
            }
            return network
        }
        a.requireBinding = try r.bool("audiosocket.require_binding", default: a.requireBinding)
        guard let listen = try r.optionalString("audiosocket.listen") else { return }
        let origin = r.origin(of: "audiosocket.listen")
        // host:port, the host an address ([::1] for IPv6): what the listener binds, checked here.
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigError(key: "audiosocket.listen", problem: "'\(listen)' is not host:port (127.0.0.1:9092, [::1]:9092)", origin: origin)
        }
        let host = String(listen[..<colon]).trimmingCharacters(in: ["[", "]"])
        guard (try? SocketAddress(ipAddress: host, port: port)) != nil else {
            throw ConfigError(key: "audiosocket.listen", problem: "'\(host)' is not an IP address to listen on (0.0.0.0 for every interface)", origin: origin)
        }
        guard !a.allowedPeers.isEmpty else {
            throw ConfigError(key: "audiosocket.allowed_peers", problem: "AudioSocket carries no credential: list the addresses of the PBXs that may connect (10.0.0.5, 10.0.0.0/24)",
                              origin: origin)
        }
        a.listen = AudioSocket.Listen(host: host, port: port)
    }
}
