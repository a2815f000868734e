import Glibc
import MultitouchCore
import Publishing
import SystemCalls
import TUIO
import TouchPipeline
import WireProtocol

/// The whole-device TUIO stream: watches the pipeline's typed output (the daemon) or its messages
/// (`multitouchctl tuio`, which reads the socket), keeps one encoder per device (its
/// own `source` and `fseq`) and sends each `touches` frame as TUIO bundles to every target. Used by
/// the daemon (`[tuio] targets`) and by `multitouchctl tuio`. Owned by one thread.
public final class TUIOBroadcaster {
    public let sender: UDPDatagramSender
    /// The host part of each `source` ("multitouchd:DEVICE@HOST").
    public let host: String
    public let maximumDatagramBytes: Int
    /// Finds a device the messages have not announced (a live device's `deviceAdded` goes out before
    /// the daemon's hook sees messages).
    private let lookup: (Int) -> DeviceInfo?
    /// Which devices are sent (the daemon: touchscreens unless `[tuio] touchpads`); nil: all.
    private let includes: ((DeviceInfo) -> Bool)?
    private var excluded: Set<Int> = []
    private var encoders: [Int: TUIOCursorEncoder] = [:]
    private var areas: [Int: TUIOArea] = [:]
    /// Bundles encoded (one per frame unless a frame was split).
    public private(set) var bundles: UInt64 = 0

    public init(
        sender: UDPDatagramSender, host: String, maximumDatagramBytes: Int = TUIOCursorEncoder.ethernetDatagramBytes,
        lookup: @escaping (Int) -> DeviceInfo? = { _ in nil }, includes: ((DeviceInfo) -> Bool)? = nil
    ) {
        self.sender = sender
        self.host = host
        self.maximumDatagramBytes = maximumDatagramBytes
        self.lookup = lookup
        self.includes = includes
    }

    /// The area TUIO's unit square stands for on a device: its whole published space.
    public static func area(of info: DeviceInfo) -> TUIOArea { TUIOArea(width: info.width, height: info.height) }

    /// Handles one batch of the pipeline's typed output: devices are noted, each whole-device frame
    /// sent as it is (a frame withheld from the whole-device stream and the routed deliveries are not
    /// the device's stream and are skipped), an ended device's encoder dropped.
    public func observe(_ outputs: [PipelineOutput]) {
        for output in outputs {
            switch output {
            case .deviceAdded(let d):
                note(DeviceInfo(d))
            case .frame(let f) where !f.isWithheld:
                let area = area(of: f.device)
                guard !excluded.contains(f.device) else { continue }
                send(area.map { TUIOFrame(frame: f.frame, area: $0) } ?? TUIOFrame(axesOf: f.frame), device: f.device)
            case .ended(let device, _, _):
                forget(device)
            case .frame, .recordingNote, .timers, .dropped, .routed, .answer:
                break
            }
        }
    }

    /// Handles one batch of messages: devices are noted, whole-device `touches` frames sent (a routed
    /// connection's region messages are not the device's stream and are skipped).
    public func observe(_ batch: [Message]) {
        for message in batch { observe(message) }
    }

    public func observe(_ message: Message) {
        switch message {
        case .hello(let hello):
            for info in hello.devices { note(info) }
        case .deviceAdded(let info):
            note(info)
        case .deviceRemoved(let removed):
            forget(removed.device)
        case .touches(let touches) where touches.routing == nil:
            // First the area: a device first seen here is looked up, and may turn out excluded.
            let area = area(of: touches.device)
            guard !excluded.contains(touches.device) else { return }
            // Unknown device (never announced, lookup failed): the touches' own 0...1 over the axes.
            send(
                area.map { TUIOFrame(message: touches, area: $0) } ?? TUIOFrame(axesOf: touches), device: touches.device
            )
        case .touches, .gesture, .dropped, .error, .pong, .subscribed,
            .unsubscribed, .stats, .transform, .regions, .recognized, .regionList:
            break
        }
    }

    /// Encodes and sends one frame with its own encoder (per `device` key);
    /// `source` names the encoder's stream the first time (default "multitouchd:DEVICE@HOST").
    public func send(_ frame: TUIOFrame, device: Int, source: String? = nil) {
        var encoder =
            encoders.removeValue(forKey: device)
            ?? TUIOCursorEncoder(
                source: source ?? TUIOCursorEncoder.sourceName(device: device, host: host),
                maximumDatagramBytes: maximumDatagramBytes)
        let datagrams = encoder.encode(frame)
        encoders[device] = encoder
        bundles += UInt64(datagrams.count)
        for datagram in datagrams { sender.send(datagram) }
    }

    private func forget(_ device: Int) {
        encoders[device] = nil
        areas[device] = nil
        excluded.remove(device)
    }

    private func note(_ info: DeviceInfo) {
        areas[info.id] = Self.area(of: info)
        if includes?(info) == false { excluded.insert(info.id) }
    }

    private func area(of device: Int) -> TUIOArea? {
        if let area = areas[device] { return area }
        guard let info = lookup(device) else { return nil }
        note(info)
        return areas[device]
    }

    /// This machine's name for `source` ("multitouchd:DEVICE@HOST").
    public static func localHostName() -> String {
        let name = (try? Sys.hostName()) ?? ""
        return name.isEmpty ? "localhost" : name
    }
}
