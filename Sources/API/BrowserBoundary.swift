import Calls
import Foundation
import HTTPTypes
import Hummingbird

/// What keeps a web page in the operator's browser from using the server: the rules a browser
/// enforces only when the server asks for them.
///
/// - `Host` must name this server — a loopback name or address, `http.host`, `http.public_url`'s
///   host or one of `http.allowed_hosts` — so a page on a rebinding domain (evil.example resolving
///   to 127.0.0.1) is refused even though its requests reach us.
/// - `Origin`, when a browser sends one, must be such a host too (cross-site requests are refused
///   on every route, the WebSocket upgrades included).
/// - A body sent to `/api` must not have a type a page may send cross-site without asking first
///   (text/plain, form encodings: the CORS "simple" types), so a forged JSON body never parses.
/// - Every response says: no framing, no type sniffing, no referrer, scripts only from here.
struct BrowserBoundary: Sendable {
    private let hosts: Set<String>

    init(config: VoiceBridgeConfig) {
        var hosts = Set(config.http.allowedHosts.map(Self.hostName))
        if !["0.0.0.0", "::", ""].contains(config.http.host) { hosts.insert(Self.hostName(config.http.host)) }
        if let url = config.http.publicURL.flatMap(URL.init(string:)), let host = url.host { hosts.insert(Self.hostName(host)) }
        self.hosts = hosts
    }

    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; media-src 'self' blob:; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    /// The CORS-safelisted request types: what a page may POST anywhere without a preflight.
    private static let simpleContentTypes: Set<String> = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]

    /// Why the request must be refused, or nil. `authority` is the Host, `origin` the Origin header.
    func problem(authority: String?, origin: String?) -> ProblemDetails? {
        if let authority, !serves(Self.hostName(Self.stripPort(authority))) {
            return ProblemDetails(.misdirectedRequest, detail: "this server does not answer to the host '\(Self.printable(authority))'; add it to http.allowed_hosts (or set http.public_url)")
        }
        if let origin {
            guard let url = URL(string: origin), ["http", "https", "ws", "wss"].contains(url.scheme ?? ""), let host = url.host, serves(Self.hostName(host)) else {
                return ProblemDetails(.forbidden, detail: "cross-origin requests are refused (Origin '\(Self.printable(origin))')")
            }
        }
        return nil
    }

    /// Why a request body to `/api` must be refused, or nil: a body with no type, or a simple one.
    func bodyProblem(method: HTTPRequest.Method, headers: HTTPFields) -> ProblemDetails? {
        guard [.post, .put, .patch, .delete].contains(method) else { return nil }
        let hasBody = headers[.transferEncoding] != nil || (headers[.contentLength].flatMap(Int.init) ?? 0) > 0
        guard hasBody else { return nil }
        let type = headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard type.isEmpty || Self.simpleContentTypes.contains(type) else { return nil }
        return ProblemDetails(.unsupportedMediaType, detail: "send JSON as Content-Type: application/json (contact and do-not-call lists: text/csv; a knowledge document: text/csv, text/markdown or application/octet-stream)")
    }

    private func serves(_ host: String) -> Bool {
        VoiceBridgeConfig.isLoopback(host) || hosts.contains(host)
    }

    /// `host[:port]` or `[v6][:port]` without the port.
    static func stripPort(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") { return String(authority[...end]) }
        guard let colon = authority.lastIndex(of: ":"), authority.firstIndex(of: ":") == colon else { return authority }
        return String(authority[..<colon])
    }

    /// Lower case, IPv6 brackets removed, no trailing dot.
    static func hostName(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// A header value as it may appear in a message: at most 100 characters, control characters escaped.
    static func printable(_ text: String) -> String {
        String(String(text.prefix(100)).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}

/// `BrowserBoundary` for every HTTP route, and its headers on every response.
struct BrowserBoundaryMiddleware<Context: RequestContext>: RouterMiddleware {
    let boundary: BrowserBoundary

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let problem = boundary.problem(authority: request.head.authority, origin: request.headers[.origin])
            ?? (request.uri.path.hasPrefix("/api/") ? boundary.bodyProblem(method: request.method, headers: request.headers) : nil) {
            response = problem.response()
        } else {
            response = try await next(request, context)
        }
        for field in BrowserBoundary.securityHeaders where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
