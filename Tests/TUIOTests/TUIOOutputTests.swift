import Configuration
import Foundation
import Glibc
import MultitouchCore
import Testing
import TouchRouting
import WireProtocol

@testable import TUIO
@testable import TUIOOutput

/// A UDP socket bound to 127.0.0.1 on a free port, read without blocking forever (SO_RCVTIMEO).
final class LoopbackReceiver {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
                guard bind(fd, p, length) == 0 else { return -1 }
                return getsockname(fd, p, &length)
            }
        }
        try #require(fd >= 0 && bound == 0)
        port = UInt16(bigEndian: address.sin_port)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// The next datagram (the sender has already sent it: loopback delivers before sendto returns).
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return n < 0 ? nil : Array(buffer.prefix(n))
    }
}

@Suite struct TUIOOutputTests {
    /// Datagrams arrive on the loopback target byte for byte, and are counted.
    @Test func sendsToLoopback() throws {
        let receiver = try LoopbackReceiver()
        let sender = try UDPDatagramSender(targets: [TUIOTarget(port: receiver.port)])
        sender.send([1, 2, 3, 4])
        #expect(receiver.receive() == [1, 2, 3, 4])
        #expect(sender.statistics.datagrams == 1 && sender.statistics.bytes == 4 && sender.statistics.failures == 0)
    }

    /// A receiver that is gone costs a sendto and nothing else: no error, no queue, nothing retried.
    @Test func goneReceiverIsHarmless() throws {
        let port: UInt16
        do {
            let gone = try LoopbackReceiver()
            port = gone.port
        }
        let sender = try UDPDatagramSender(targets: [TUIOTarget(port: port)])
        for _ in 0..<100 { sender.send([0, 0, 0, 0]) }
        #expect(sender.statistics.datagrams + sender.statistics.failures == 100)
    }

    /// The broadcaster sends whole-device frames normalized over the announced published space, one
    /// encoder (fseq) per device, and skips a routed connection's region messages.
    @Test func broadcasterNormalizesOverTheDevice() throws {
        let receiver = try LoopbackReceiver()
        let broadcaster = TUIOBroadcaster(
            sender: try UDPDatagramSender(targets: [TUIOTarget(port: receiver.port)]), host: "table")
        let info = DeviceInfo(
            id: 3, name: "screen", source: "/dev/input/event3", deviceClass: .touchscreen, multitouchProtocol: .b,
            slots: 10, isSemiMT: false, units: .pixels, width: 1920, height: 1080, widthMillimeters: 500,
            heightMillimeters: 280, sizeSource: "resolution")
        let point = TouchPoint(
            id: 9, phase: .began, location: Point(x: 480, y: 810), previousLocation: Point(x: 480, y: 810),
            normalized: Point(x: 0.9, y: 0.1), millimeters: .zero, slot: 0, tapCount: 1, type: .direct)
        var routed = TouchesMessage(
            device: 3, time: Timestamp(microseconds: 0), fingers: 1, isSemiMT: false, touches: [point])
        routed.routing = TouchesRouting(region: "map", role: .owner)
        broadcaster.observe([
            .deviceAdded(info),
            .touches(
                TouchesMessage(
                    device: 3, time: Timestamp(microseconds: 0), fingers: 1, isSemiMT: false, touches: [point])),
            .touches(routed),
        ])
        let datagram = try #require(receiver.receive())
        #expect(receiver.receive() == nil, "the routed message was sent too")
        let messages = try decodeBundle(datagram)
        #expect(messages[0].arguments == [.string("source"), .string("multitouchd:3@table")])
        #expect(sets(messages)[9]?.prefix(2) == [.float(0.25), .float(0.75)])
        #expect(broadcaster.bundles == 1)
    }
}

extension TUIOOutputTests {
    /// The daemon's default sends touchscreens only: a touchpad's frames are not sent, and a device
    /// first seen through the lookup is filtered the same way.
    @Test func touchpadsAreLeftOutUnlessIncluded() throws {
        let receiver = try LoopbackReceiver()
        func device(_ id: Int, _ deviceClass: DeviceClass) -> DeviceInfo {
            DeviceInfo(
                id: id, name: "d\(id)", source: "", deviceClass: deviceClass, multitouchProtocol: .b, slots: 5,
                isSemiMT: false, units: .millimeters, width: 100, height: 60, widthMillimeters: 100,
                heightMillimeters: 60, sizeSource: "resolution")
        }
        let broadcaster = TUIOBroadcaster(
            sender: try UDPDatagramSender(targets: [TUIOTarget(port: receiver.port)]), host: "h",
            lookup: { $0 == 2 ? device(2, .touchpad) : nil }, includes: { $0.deviceClass == .touchscreen })
        func frame(_ device: Int) -> Message {
            .touches(
                TouchesMessage(
                    device: device, time: Timestamp(microseconds: 0), fingers: 1, isSemiMT: false,
                    touches: [
                        TouchPoint(
                            id: UInt64(device), phase: .began, location: Point(x: 50, y: 30),
                            previousLocation: Point(x: 50, y: 30), normalized: Point(x: 0.5, y: 0.5),
                            millimeters: Point(x: 50, y: 30), slot: 0, tapCount: 1, type: .direct)
                    ]))
        }
        broadcaster.observe([.deviceAdded(device(1, .touchpad)), frame(1), frame(2)])
        #expect(receiver.receive() == nil)
        broadcaster.observe([.deviceAdded(device(3, .touchscreen)), frame(3)])
        let messages = try decodeBundle(try #require(receiver.receive()))
        #expect(messages[0].arguments == [.string("source"), .string("multitouchd:3@h")])
    }
}

/// Issue 28 item 8: `[tuio] targets` host names were resolved with getaddrinfo on the event loop, so a
/// reload with DNS not answering held every client for 10 s. The sender now starts at once and
/// resolves names on a thread of its own.
@Suite("UDP sender: names resolved off the caller's thread")
struct UDPResolutionTests {
    /// A name that does not resolve no longer stops the sender (it stopped the whole TUIO output, and
    /// before that held the loop while DNS was asked): the address targets are served.
    @Test func aNameThatDoesNotResolveLeavesTheOtherTargetsServed() throws {
        let receiver = try LoopbackReceiver()
        let sender = try UDPDatagramSender(targets: [
            TUIOTarget(host: "no-such-host.invalid", port: 9), TUIOTarget(port: receiver.port),
        ])
        sender.send([1, 2, 3])
        #expect(receiver.receive() == [1, 2, 3])
    }

    /// With a resolver that does not answer until the test lets it (a DNS server that does not
    /// answer), the sender is made and sends to its address targets meanwhile; the name's datagrams
    /// are counted as unresolved, then go out once it resolved.
    @Test func aResolverThatDoesNotAnswerBlocksNothing() throws {
        let receiver = try LoopbackReceiver()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let port = receiver.port
        let sender = try UDPDatagramSender(
            targets: [TUIOTarget(host: "slow.example", port: port), TUIOTarget(port: port)],
            resolver: { target in
                gate.wait()
                return .success(UDPDatagramSender.literalAddress(TUIOTarget(port: target.port))!)
            },
            resolvedName: { _, _ in done.signal() })
        sender.send([7])
        #expect(receiver.receive() == [7])
        #expect(sender.statistics.unresolved == 1)
        #expect(sender.unresolvedTargets.map(\.host) == ["slow.example"])
        gate.signal()
        done.wait()
        sender.send([8])
        #expect(receiver.receive() == [8])
        #expect(receiver.receive() == [8])
        #expect(sender.unresolvedTargets.isEmpty)
    }
}
