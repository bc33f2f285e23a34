import Testing
@testable import Bridge

@Suite struct RTPPortPoolTests {
    @Test func handsOutEvenPortsInRangeUntilExhausted() throws {
        let pool = try RTPPortPool(range: 20001...20010, startIndex: 0)
        var ports: [Int] = []
        for _ in 0..<4 { ports.append(try pool.acquire()) }
        #expect(ports == [20002, 20004, 20006, 20008])
        #expect(throws: RTPPortPool.Failure.exhausted(range: 20001...20010)) { try pool.acquire() }
        #expect(pool.inUseCount == 4)
    }

    @Test func releasedPortsGoToTheBackOfTheLine() throws {
        let pool = try RTPPortPool(range: 30000...30007, startIndex: 0)
        let a = try pool.acquire()
        pool.release(a)
        #expect(try pool.acquire() == 30002)
        #expect(try pool.acquire() == 30004)
        #expect(try pool.acquire() == 30006)
        #expect(try pool.acquire() == a)
    }

    @Test func doubleReleaseDoesNotDuplicateAPort() throws {
        let pool = try RTPPortPool(range: 40000...40003)
        let a = try pool.acquire()
        pool.release(a)
        pool.release(a)
        #expect(pool.capacity == 2)
        _ = try pool.acquire(); _ = try pool.acquire()
        #expect(throws: RTPPortPool.Failure.self) { try pool.acquire() }
    }

    /// Another server on this host (the same sockets) holds the pool's first port: the session
    /// takes the next pair rather than binding the held port too and taking its media.
    @Test func aPortHeldElsewhereIsPassedOver() async throws {
        let held = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let pool = try RTPPortPool(range: (held.localPort - held.localPort % 2 - 1)...(held.localPort - held.localPort % 2 + 5), startIndex: 0)
        let session = try await RTPSession.open(host: "127.0.0.1", pool: pool)
        #expect(session.localPort != held.localPort && session.localPort + 1 != held.localPort, "\(session.localPort) vs held \(held.localPort)")
        await session.close()
        await held.close()
    }

    /// Issue 57 item 5: the line starts anywhere in the range and goes round it, every pair once.
    @Test func theLineStartsAtAnyPairAndGoesRoundTheRange() throws {
        let rotated = try RTPPortPool(range: 20000...20009, startIndex: 3)
        #expect(try (0..<5).map { _ in try rotated.acquire() } == [20006, 20008, 20000, 20002, 20004])
        var firsts = Set<Int>()
        for _ in 0..<64 { firsts.insert(try RTPPortPool(range: 20000...20199).acquire()) }
        #expect(firsts.count > 8, "random starts: \(firsts.sorted())")
    }

    /// A second server on this host holding most of the range: the session finds the pair left,
    /// wherever it is (it tried 8 pairs from the bottom before).
    @Test func aSessionFindsTheOnePairLeftInARangeHeldElsewhere() async throws {
        var held: [UDPSocket] = []
        let probe = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let base = probe.localPort - probe.localPort % 2 + 2
        await probe.close()
        for port in base..<(base + 38) { if let socket = try? await UDPSocket.bind(host: "127.0.0.1", port: port, handler: { _, _ in }) { held.append(socket) } }
        let pool = try RTPPortPool(range: base...(base + 39), startIndex: 0)
        let session = try await RTPSession.open(host: "127.0.0.1", pool: pool)
        #expect(session.localPort == base + 38, "the one pair not held: \(session.localPort)")
        await session.close()
        for socket in held { await socket.close() }
    }

    @Test func rejectsARangeWithoutAPortPair() {
        #expect(throws: RTPPortPool.Failure.invalidRange(5001...5001)) { try RTPPortPool(range: 5001...5001) }
    }
}
