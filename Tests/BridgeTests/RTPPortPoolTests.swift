import Testing
@testable import Bridge

@Suite struct RTPPortPoolTests {
    @Test func handsOutEvenPortsInRangeUntilExhausted() throws {
        let pool = try RTPPortPool(range: 20001...20010)
        var ports: [Int] = []
        for _ in 0..<4 { ports.append(try pool.acquire()) }
        #expect(ports == [20002, 20004, 20006, 20008])
        #expect(throws: RTPPortPool.Failure.exhausted(range: 20001...20010)) { try pool.acquire() }
        #expect(pool.inUseCount == 4)
    }

    @Test func releasedPortsGoToTheBackOfTheLine() throws {
        let pool = try RTPPortPool(range: 30000...30007)
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

    @Test func rejectsARangeWithoutAPortPair() {
        #expect(throws: RTPPortPool.Failure.invalidRange(5001...5001)) { try RTPPortPool(range: 5001...5001) }
    }
}
