import HTTPTypes
@testable import GatewayServer
import Synchronization
import Testing

/// Who the client is: strict address parsing, trusted proxy blocks, `Forwarded` and
/// `X-Forwarded-For` read right to left from trusted peers only, and refusals counted.
@Suite("Client address: trusted proxies, Forwarded / X-Forwarded-For, refusals fall back to the peer")
struct ClientAddressTests {
    static let proxy = IPAddress("10.0.0.5")!
    static let stranger = IPAddress("192.0.2.1")!

    /// Refusals a resolver reported, as `header:reason`.
    final class Refusals: Sendable {
        private let items = Mutex<[String]>([])
        func withLock<T>(_ body: (inout [String]) -> T) -> T { items.withLock { body(&$0) } }
    }

    /// A resolver trusting `list`, with the refusals it counted.
    static func resolver(_ list: String = "10.0.0.0/8, 2001:db8:1::/48") throws -> (ClientAddressResolver, Refusals) {
        let refusals = Refusals()
        let resolver = ClientAddressResolver(trusted: try TrustedProxies(parsing: list)) { header, reason in
            refusals.withLock { $0.append("\(header):\(reason.rawValue)") }
        }
        return (resolver, refusals)
    }

    static func headers(_ fields: [(String, String)]) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return headers
    }

    @Test("addresses parse strictly and print canonically; IPv4-mapped IPv6 is IPv4; zones, names and junk are refused")
    func addresses() {
        #expect(IPAddress("203.0.113.9")?.description == "203.0.113.9")
        #expect(IPAddress("2001:DB8:0:0::1")?.description == "2001:db8::1")
        #expect(IPAddress("::ffff:198.51.100.7")?.description == "198.51.100.7")
        #expect(IPAddress("::ffff:198.51.100.7") == IPAddress("198.51.100.7"))
        for bad in [
            "fe80::1%eth0", "example.com", "1.2.3", "1.2.3.4.5", "256.1.1.1", "", " 1.2.3.4", "01.2.3.4x", "::g",
        ] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    @Test("CIDR blocks: prefixes, single addresses, families kept apart, typos refused")
    func blocks() throws {
        let block = try #require(CIDRBlock("10.0.0.0/8"))
        #expect(block.contains(IPAddress("10.255.1.2")!))
        #expect(!block.contains(IPAddress("11.0.0.1")!))
        #expect(block.contains(IPAddress("::ffff:10.1.1.1")!))
        #expect(try #require(CIDRBlock("2001:db8::/32")).contains(IPAddress("2001:db8:ffff::1")!))
        #expect(!(try #require(CIDRBlock("::/0")).contains(IPAddress("1.2.3.4")!)))
        #expect(try #require(CIDRBlock("127.0.0.1")).prefixLength == 32)
        #expect(try #require(CIDRBlock("0.0.0.0/0")).contains(IPAddress("8.8.8.8")!))
        // A prefix that ends inside a byte.
        let docker = try #require(CIDRBlock("172.16.0.0/12"))
        #expect(
            docker.contains(IPAddress("172.31.255.255")!) && !docker.contains(IPAddress("172.32.0.1")!)
                && !docker.contains(IPAddress("172.15.0.1")!))
        for bad in ["10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "::/129", "10.0.0.0/8/8", "fe80::%1/64"] {
            #expect(CIDRBlock(bad) == nil, "\(bad)")
        }
        #expect(throws: TrustedProxies.InvalidBlock(text: "nope")) { try TrustedProxies(parsing: "10.0.0.0/8, nope") }
        #expect(try TrustedProxies(parsing: " 10.0.0.0/8 ,, ::1 ").blocks.count == 2)
    }

    @Test("requests in flight: each address held to the limit, a finished request frees its place, others unaffected")
    func inFlightPerAddress() {
        let inFlight = InFlightPerAddress(limit: 2)
        let client = IPAddress("198.51.100.7")!, other = IPAddress("203.0.113.9")!
        #expect(inFlight.enter(client) && inFlight.enter(client))
        #expect(!inFlight.enter(client))
        #expect(inFlight.enter(other))
        inFlight.leave(client)
        #expect(inFlight.enter(client))
        #expect(!inFlight.enter(client))
    }

    @Test("from a trusted peer: the right-most untrusted hop of X-Forwarded-For, ports and brackets allowed")
    func xForwardedFor() throws {
        let (resolver, refusals) = try Self.resolver()
        func client(_ value: String) -> String {
            resolver.resolve(peer: Self.proxy, headers: Self.headers([("X-Forwarded-For", value)])).description
        }
        #expect(client("198.51.100.7") == "198.51.100.7")
        #expect(client("6.6.6.6, 198.51.100.7, 10.1.1.1") == "198.51.100.7")
        #expect(client("198.51.100.7:4711") == "198.51.100.7")
        #expect(client("[2001:db8:2::7]:443, 10.2.2.2") == "2001:db8:2::7")
        #expect(client("2001:db8:2::7") == "2001:db8:2::7")
        // Every hop trusted: the left-most one.
        #expect(client("10.9.9.9, 10.1.1.1") == "10.9.9.9")
        #expect(refusals.withLock { $0 }.isEmpty)
        // Several fields are one list.
        let twoFields = Self.headers([("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "198.51.100.8")])
        #expect(resolver.resolve(peer: Self.proxy, headers: twoFields).description == "198.51.100.8")
    }

    @Test(
        "RFC 7239 Forwarded wins over X-Forwarded-For: quoted IPv6 with port, obfuscated proxies, case-insensitive keys"
    )
    func forwarded() throws {
        let (resolver, refusals) = try Self.resolver()
        func client(_ fields: [(String, String)]) -> String {
            resolver.resolve(peer: Self.proxy, headers: Self.headers(fields)).description
        }
        #expect(client([("Forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43")]) == "192.0.2.60")
        #expect(client([("Forwarded", #"for="[2001:db8:cafe::17]:4711", For=10.0.0.9"#)]) == "2001:db8:cafe::17")
        #expect(client([("Forwarded", "for=198.51.100.7"), ("X-Forwarded-For", "6.6.6.6")]) == "198.51.100.7")
        #expect(client([("Forwarded", #"for=198.51.100.7;by="_hidden;proxy", for=10.0.0.2"#)]) == "198.51.100.7")
        #expect(refusals.withLock { $0 }.isEmpty)
    }

    @Test("from any other peer the headers change nothing")
    func untrustedPeer() throws {
        let (resolver, refusals) = try Self.resolver()
        let spoofed = Self.headers([("X-Forwarded-For", "203.0.113.9"), ("Forwarded", "for=203.0.113.9")])
        #expect(resolver.resolve(peer: Self.stranger, headers: spoofed) == Self.stranger)
        #expect(!resolver.trusts(Self.stranger) && resolver.trusts(Self.proxy) && !resolver.trusts(nil))
        let (nobody, _) = try Self.resolver("")
        #expect(nobody.resolve(peer: Self.proxy, headers: spoofed) == Self.proxy)
        #expect(refusals.withLock { $0 }.isEmpty)
    }

    @Test("malformed values, 100 hops, zone ids, hidden clients: the peer is the client and a counter goes up")
    func refusals() throws {
        let (resolver, refusals) = try Self.resolver()
        let hundred = (1...100).map { "198.51.100.\($0)" }.joined(separator: ", ")
        let cases: [((String, String), String)] = [
            (("X-Forwarded-For", hundred), "x-forwarded-for:too_long"),
            (("X-Forwarded-For", "fe80::1%eth0"), "x-forwarded-for:malformed"),
            (("X-Forwarded-For", "not-an-address"), "x-forwarded-for:malformed"),
            (("X-Forwarded-For", "1.2.3.4,,5.6.7.8"), "x-forwarded-for:malformed"),
            (("X-Forwarded-For", "[2001:db8::1"), "x-forwarded-for:malformed"),
            (("X-Forwarded-For", "1.2.3.4:99999999999999999999"), "x-forwarded-for:malformed"),
            (("X-Forwarded-For", String(repeating: "1", count: 5000)), "x-forwarded-for:too_long"),
            (("X-Forwarded-For", "unknown, 10.0.0.1"), "x-forwarded-for:hidden_hop"),
            (("Forwarded", #"for="198.51.100.7"#), "forwarded:malformed"),
            (("Forwarded", "for=198.51.100.7;for=1.2.3.4"), "forwarded:malformed"),
            (("Forwarded", #"for="[fe80::1%25eth0]""#), "forwarded:malformed"),
            (("Forwarded", "for=_mysterious"), "forwarded:hidden_hop"),
            (("Forwarded", "proto=https"), "forwarded:hidden_hop"),
            (("Forwarded", "=1.2.3.4"), "forwarded:malformed"),
            (("Forwarded", #"for="a\"b""#), "forwarded:malformed"),
        ]
        for ((name, value), expected) in cases {
            refusals.withLock { $0.removeAll() }
            let client = resolver.resolve(peer: Self.proxy, headers: Self.headers([(name, value)]))
            #expect(client == Self.proxy, "\(name): \(value.prefix(60))")
            #expect(refusals.withLock { $0 } == [expected], "\(name): \(value.prefix(60))")
        }
    }
}

/// The PROXY protocol header of L4 load balancers (v1 text, v2 binary).
@Suite("PROXY protocol headers: v1 and v2 parsed strictly; garbage never crashes")
struct ProxyProtocolHeaderTests {
    static func v2(command: UInt8 = 0x21, family: UInt8 = 0x11, block: [UInt8]) -> [UInt8] {
        ProxyProtocolHeader.v2Signature + [command, family, UInt8(block.count >> 8), UInt8(block.count & 0xFF)] + block
    }

    @Test(
        "version 1: TCP4, TCP6 and UNKNOWN; partial input waits; malformed lines are skipped or refuse the connection")
    func version1() {
        let line = Array("PROXY TCP4 198.51.100.7 10.0.0.1 56324 443\r\nGET / HTTP/1.1\r\n".utf8)
        #expect(ProxyProtocolHeader.parse(line) == .header(length: 44, source: IPAddress("198.51.100.7")))
        #expect(
            ProxyProtocolHeader.parse(Array("PROXY TCP6 2001:db8::7 2001:db8::1 1 2\r\n".utf8))
                == .header(length: 40, source: IPAddress("2001:db8::7")))
        #expect(ProxyProtocolHeader.parse(Array("PROXY UNKNOWN\r\n".utf8)) == .header(length: 15, source: nil))
        #expect(ProxyProtocolHeader.parse(Array("PRO".utf8)) == .needMore)
        #expect(ProxyProtocolHeader.parse(Array("PROXY TCP4 198.51.100.7 10.0.0.1 5".utf8)) == .needMore)
        #expect(ProxyProtocolHeader.parse(Array("GET / HTTP/1.1\r\n".utf8)) == .absent)
        for bad in [
            "PROXY TCP4 1.2.3.4 10.0.0.1 1 99999\r\n", "PROXY TCP4 2001:db8::1 10.0.0.1 1 2\r\n",
            "PROXY TCP4 1.2.3.4\r\n",
            "PROXY TCP9 1.2.3.4 5.6.7.8 1 2\r\n", "PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n", "PROXY \r\n",
        ] {
            let bytes = Array(bad.utf8)
            #expect(ProxyProtocolHeader.parse(bytes) == .invalid(length: bytes.count), "\(bad)")
        }
        #expect(ProxyProtocolHeader.parse(Array("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX".utf8)) == .invalid(length: nil))
        #expect(
            ProxyProtocolHeader.parse(Array(("PROXY " + String(repeating: "A", count: 200)).utf8))
                == .invalid(length: nil))
    }

    @Test(
        "version 2: PROXY over IPv4 and IPv6 with TLVs, LOCAL, unix; bad versions and huge blocks refuse the connection"
    )
    func version2() {
        let ipv4 = Self.v2(block: [198, 51, 100, 7, 10, 0, 0, 1, 0x1F, 0x90, 0x01, 0xBB] + [0x04, 0x00, 0x01, 0x00])
        #expect(
            ProxyProtocolHeader.parse(ipv4 + Array("GET".utf8))
                == .header(length: 32, source: IPAddress("198.51.100.7")))
        let source6: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [7]
        let ipv6 = Self.v2(family: 0x21, block: source6 + Array(repeating: 1, count: 16) + [0, 1, 0, 2])
        #expect(ProxyProtocolHeader.parse(ipv6) == .header(length: 52, source: IPAddress("2001:db8::7")))
        #expect(
            ProxyProtocolHeader.parse(Self.v2(command: 0x20, family: 0x00, block: []))
                == .header(length: 16, source: nil))
        #expect(
            ProxyProtocolHeader.parse(Self.v2(family: 0x31, block: Array(repeating: 0, count: 216)))
                == .header(length: 232, source: nil))
        #expect(ProxyProtocolHeader.parse(Array(ipv4.prefix(20))) == .needMore)
        #expect(ProxyProtocolHeader.parse(Array(ipv4.prefix(7))) == .needMore)
        #expect(ProxyProtocolHeader.parse(Self.v2(block: [1, 2, 3])) == .invalid(length: 19))
        #expect(ProxyProtocolHeader.parse(Self.v2(family: 0x51, block: [])) == .invalid(length: 16))
        #expect(ProxyProtocolHeader.parse(Self.v2(command: 0x11, block: [])) == .invalid(length: nil))
        #expect(ProxyProtocolHeader.parse(Self.v2(command: 0x2F, block: [])) == .invalid(length: nil))
        #expect(
            ProxyProtocolHeader.parse(ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0xFF, 0xFF])
                == .invalid(length: nil))
    }

    @Test("random bytes: never a crash, always an answer")
    func garbage() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 2_000 {
            let length = Int.random(in: 0 ..< 300, using: &generator)
            var bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            if Bool.random(using: &generator) { bytes = ProxyProtocolHeader.v2Signature + bytes }
            if Bool.random(using: &generator) { bytes = Array("PROXY ".utf8) + bytes }
            switch ProxyProtocolHeader.parse(bytes) {
            case .invalid(let length?), .header(let length, _): #expect(length <= bytes.count)
            case .needMore, .absent, .invalid(nil): break
            }
        }
    }
}
