import AsyncHTTPClient
import Foundation
import NIOCore

/// Just enough of the W3C WebDriver protocol to drive headless Chromium through chromedriver
/// (Debian's chromium-driver): plain JSON over HTTP, one session.
public final class WebDriver: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private var process = Process()
    private var base = ""
    /// Chromium's own log (chromedriver's `--enable-chrome-logs`), quoted when the browser is lost.
    private var browserLog: URL?
    private var browserLogHandle: FileHandle?
    public private(set) var sessionID = ""

    /// Starts chromedriver on a free port and opens a headless session of `width` × `height`;
    /// `arguments` go to Chromium after the usual ones (a fake microphone, say). The port is
    /// free when chosen but another process (an e2e suite beside the unit tests) may bind it
    /// first: chromedriver then exits, and is started again on another port.
    public init(width: Int, height: Int, arguments: [String] = []) async throws {
        var lastError: Error = Failure(description: "chromedriver was not started")
        for _ in 0..<3 {
            let port = try freeTCPPort()
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1", "--enable-chrome-logs"]
            process.standardOutput = FileHandle.nullDevice
            try openBrowserLog()
            process.standardError = browserLogHandle
            try process.run()
            base = "http://127.0.0.1:\(port)"
            do {
                try await waitUntilReady()
                try await openSession(width: width, height: height, arguments: arguments)
                return
            } catch {
                lastError = error
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
        }
        throw lastError
    }

    private func openBrowserLog() throws {
        closeBrowserLog()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw Failure(description: "cannot create \(log.path)") }
        browserLog = log
        browserLogHandle = try FileHandle(forWritingTo: log)
    }

    private func closeBrowserLog() {
        try? browserLogHandle?.close()
        if let browserLog { try? FileManager.default.removeItem(at: browserLog) }
        browserLogHandle = nil
        browserLog = nil
    }

    /// The end of Chromium's log when `message` says the browser or its page went away: beside a
    /// loaded `make test` (4 Dec) the browser once closed its connection mid-test, and nothing
    /// said why. The bus errors a headless browser logs at every start are left out.
    private func browserGone(_ message: String) -> String {
        guard ["disconnected", "invalid session id", "tab crashed"].contains(where: message.contains), let browserLog,
              let text = try? String(contentsOf: browserLog, encoding: .utf8) else { return "" }
        let lines = text.split(separator: "\n").filter { !$0.contains("dbus") }.suffix(12)
        return "\nChromium's log ends:\n" + lines.joined(separator: "\n")
    }

    /// Waits for chromedriver's /status to say ready; fails at once when it has exited.
    private func waitUntilReady() async throws {
        let deadline = Date().addingTimeInterval(15)
        var lastError = ""
        while true {
            do {
                if try await request("GET", "/status")["ready"] as? Bool == true { return }
            } catch { lastError = "\(error)" }
            guard process.isRunning else { throw Failure(description: "chromedriver exited (status \(process.terminationStatus)): \(lastError)") }
            guard Date() < deadline else { throw Failure(description: "chromedriver did not become ready: \(lastError)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func openSession(width: Int, height: Int, arguments: [String]) async throws {
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": "/usr/bin/chromium",
                                   "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),\(height)", "--lang=en-US"] + arguments],
        ]]]
        let session = try await request("POST", "/session", capabilities)
        guard let id = (session["value"] as? [String: Any])?["sessionId"] as? String else { throw Failure(description: "no session: \(session)") }
        sessionID = id
    }

    /// Closes the browser and stops chromedriver (which ignores SIGTERM while it has children,
    /// hence its own /shutdown, then SIGKILL if it is still there).
    public func quit() async {
        _ = try? await request("DELETE", "/session/\(sessionID)")
        _ = try? await request("GET", "/shutdown")
        for _ in 0..<20 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        closeBrowserLog()
    }

    public func navigate(_ url: String) async throws {
        _ = try await request("POST", "/session/\(sessionID)/url", ["url": url])
    }

    /// Runs `script` in the page and returns its value.
    @discardableResult
    public func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await request("POST", "/session/\(sessionID)/execute/sync", ["script": script, "args": arguments])["value"] ?? nil
    }

    public func element(_ css: String) async throws -> String {
        let found = try await request("POST", "/session/\(sessionID)/element", ["using": "css selector", "value": css])
        guard let object = found["value"] as? [String: Any], let id = object.values.first as? String else { throw Failure(description: "no element \(css)") }
        return id
    }

    public func type(_ css: String, _ text: String) async throws {
        _ = try await request("POST", "/session/\(sessionID)/element/\(try await element(css))/value", ["text": text])
    }

    /// Clicks the element `css` finds. A page that re-renders a list (a campaign's state arriving
    /// over the events stream) can replace the element between the find and the click: WebDriver
    /// then answers "stale element reference", and the element is found again (a few times).
    public func click(_ css: String) async throws {
        for attempt in 1... {
            do {
                _ = try await request("POST", "/session/\(sessionID)/element/\(try await element(css))/click", [String: Any]())
                return
            } catch let failure as Failure where failure.description.contains("stale element reference") && attempt < 5 {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Polls `condition` (a JavaScript expression) until it is true.
    public func wait(for condition: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if try await execute("return Boolean(\(condition));") as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw Failure(description: "timed out waiting for \(condition)")
    }

    public func screenshot(to path: String) async throws {
        let shot = try await request("GET", "/session/\(sessionID)/screenshot")
        guard let base64 = shot["value"] as? String, let data = Data(base64Encoded: base64) else { throw Failure(description: "no screenshot") }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    private func request(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 32 << 20)
        let object = try JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any] ?? [:]
        if let value = object["value"] as? [String: Any], let error = value["error"] as? String {
            let message = "\(value["message"] ?? "")"
            throw Failure(description: "\(method) \(path): \(error): \(message)" + browserGone(error + " " + message))
        }
        if path == "/status" { return object["value"] as? [String: Any] ?? [:] }
        return object
    }
}
