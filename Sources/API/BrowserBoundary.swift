import Calls
import Foundation
import HTTPTypes
import Hummingbird
import Tools

/// What keeps a web page in the operator's browser from using the server: the rules a browser
/// enforces only when the server asks for them.
///
/// - `Host` must name this server — a loopback name or address, `http.host`, `http.public_url`'s
///   host or one of `http.allowed_hosts` — so a page on a rebinding domain (evil.example resolving
///   to 127.0.0.1) is refused even though its requests reach us.
/// - `Origin`, when a browser sends one (http or https), must be this server's own origin: the
///   scheme, host and port the request came to (its `Host`), or `http.public_url`'s. A page served
///   by another program on the same machine (http://127.0.0.1:3000) is another origin, loopback or
///   not. Cross-origin requests are refused on every route, the WebSocket upgrades included.
/// - The path must be in its plain form (no `//`, `.` or `..` segments, no escaped `/` or `\`):
///   the router reads `//api/x` as `/api/x`, so a rule written for `/api/` must see it so too.
/// - A body must not have a type a page may send cross-site without asking first (text/plain, form
///   encodings: the CORS "simple" types), so a forged JSON body never parses — on every route but
///   Twilio's signed form callbacks (`/twilio/`).
/// - Every response says: no framing, no type sniffing, no referrer, scripts only from here.
struct BrowserBoundary: Sendable {
    private let hosts: Set<String>
    /// `http.public_url` as an origin (a proxy in front of the server may give another `Host`).
    private let publicOrigin: OutboundURL?

    init(config: VoiceBridgeConfig) {
        var hosts = Set(config.http.allowedHosts.map(Self.hostName))
        if !["0.0.0.0", "::", ""].contains(config.http.host) { hosts.insert(Self.hostName(config.http.host)) }
        publicOrigin = config.http.publicURL.flatMap { try? OutboundURL($0) }
        if let publicOrigin { hosts.insert(publicOrigin.host) }
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
        if let origin, !isOwn(origin: origin, authority: authority) {
            return ProblemDetails(.forbidden, detail: "cross-origin requests are refused (Origin '\(Self.printable(origin))')")
        }
        return nil
    }

    /// Whether `origin` is this server's: `http.public_url`'s origin, or the scheme's host and port
    /// the request itself came to. Without a `Host` (not HTTP/1.1), or from a program rather than a
    /// page (a ws(s) origin), a host this server answers to.
    func isOwn(origin: String, authority: String?) -> Bool {
        guard let url = try? OutboundURL(origin, schemes: OutboundURL.webSchemes.union(OutboundURL.socketSchemes)), url.pathAndQuery == "/",
              serves(url.host) else { return false }
        if let publicOrigin, publicOrigin.scheme == url.scheme, publicOrigin.host == url.host, publicOrigin.port == url.port { return true }
        // A browser's Origin is its page's, always http(s) with the port written when not the
        // scheme's. A ws(s) origin comes from a program, not a page (swift-websocket's client sends
        // `ws://host` without the port): a host this server answers to is enough there.
        guard let authority, OutboundURL.webSchemes.contains(url.scheme) else { return true }
        let host = Self.hostName(Self.stripPort(authority))
        let port = Self.port(of: authority) ?? url.port
        return host == url.host && port == url.port
    }

    /// Why the request's path must be refused, or nil: it must be in the plain form the rules read.
    static func pathProblem(_ target: String) -> ProblemDetails? {
        let path = target.prefix { $0 != "?" }
        let lower = path.lowercased()
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if path.contains("//") || segments.contains(where: { $0 == "." || $0 == ".." }) || path.contains("\\")
            || lower.contains("%2f") || lower.contains("%5c") || lower.contains("%2e") {
            return ProblemDetails(.badRequest, detail: "the path '\(printable(String(path)))' is not in its plain form (no //, . or .. segments, no escaped / or \\)")
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

    /// The port of `host:port` or `[v6]:port`, nil when none is written.
    static func port(of authority: String) -> Int? {
        let rest = authority.hasPrefix("[") ? authority.drop(while: { $0 != "]" }).dropFirst() : Substring(authority)
        guard let colon = rest.lastIndex(of: ":"), rest.firstIndex(of: ":") == colon else { return nil }
        return Int(rest[rest.index(after: colon)...])
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
        let target = request.head.path ?? "/"
        if let problem = BrowserBoundary.pathProblem(target)
            ?? boundary.problem(authority: request.head.authority, origin: request.headers[.origin])
            ?? (target.hasPrefix("/twilio/") ? nil : boundary.bodyProblem(method: request.method, headers: request.headers)) {
            response = problem.response()
        } else {
            response = try await next(request, context)
        }
        for field in BrowserBoundary.securityHeaders where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
