import Configuration
import MultitouchCore
import TUIO
import TouchPipeline
import TouchRouting

/// The daemon's `[[tuio.region]]` output (docs/TUIO.md): what the pipelines route to the regions the
/// configuration holds (`ConfiguredRegion`, client id `ClientID.configured(index)`) sent as TUIO 1.1,
/// normalized to each region's rectangle, to that region's own target. One encoder per device and
/// region (its own `source` `multitouchd:DEVICE/REGION@HOST` and `fseq`). Reads the typed output
/// (no wire message in between). Owned by the daemon's loop thread.
public final class TUIORegionSender {
    /// One configured region and where its touches go.
    private struct Target {
        var id: String
        var area: TUIOArea
        var sender: UDPDatagramSender
    }
    /// By configured client id.
    private var targets: [ClientID: Target] = [:]
    private let host: String
    private let maximumDatagramBytes: Int
    private var encoders: [Key: TUIOCursorEncoder] = [:]
    /// Bundles encoded (one per routed frame unless a frame was split).
    public private(set) var bundles: UInt64 = 0

    private struct Key: Hashable {
        var device: Int
        var client: ClientID
    }

    /// - Parameters:
    ///   - regions: the configuration's region targets; the `index`th is held under
    ///     `ClientID.configured(index)` (the daemon's pipelines declare them so).
    ///   - makeSender: the UDP sender of one target (the daemon resolves names off its loop).
    public init(
        regions: [TUIORegionTarget], host: String, maximumDatagramBytes: Int,
        makeSender: (TUIOTarget) throws(UDPSenderError) -> UDPDatagramSender
    ) throws(UDPSenderError) {
        self.host = host
        self.maximumDatagramBytes = maximumDatagramBytes
        for (index, region) in regions.enumerated() where region.rect.count == 4 {
            let area = TUIOArea(
                origin: Point(x: region.rect[0], y: region.rect[1]), width: region.rect[2], height: region.rect[3])
            targets[.configured(index)] = Target(id: region.id, area: area, sender: try makeSender(region.target))
        }
    }

    /// What the senders sent, summed over the regions.
    public var statistics: UDPDatagramSender.Statistics {
        var total = UDPDatagramSender.Statistics()
        for target in targets.values {
            let s = target.sender.statistics
            total.datagrams += s.datagrams
            total.bytes += s.bytes
            total.failures += s.failures
            total.unresolved += s.unresolved
        }
        return total
    }

    /// Handles one batch of the pipelines' output: each routed `touches` delivery to a configured
    /// region goes out as a TUIO frame; an ended device's encoders are dropped.
    public func observe(_ outputs: [PipelineOutput]) {
        for output in outputs {
            switch output {
            case .frame(let f):
                for delivery in f.routed { send(delivery, device: f.device) }
            case .routed(let r):
                for delivery in r.deliveries { send(delivery, device: r.device) }
            case .ended(let device, _, _):
                encoders = encoders.filter { $0.key.device != device }
            case .deviceAdded, .recordingNote, .timers, .dropped, .answer:
                break
            }
        }
    }

    private func send(_ delivery: RoutingDelivery, device: Int) {
        guard case .touches(let routed) = delivery, routed.recipient.client.isConfigured,
            routed.recipient.role == .owner,
            let target = targets[routed.recipient.client]
        else { return }
        let frame = TUIOFrame(
            time: routed.time,
            cursors: routed.touches.map {
                TUIOCursorSample(id: $0.id, phase: $0.phase, position: target.area.normalize($0.location))
            })
        let key = Key(device: device, client: routed.recipient.client)
        var encoder =
            encoders.removeValue(forKey: key)
            ?? TUIOCursorEncoder(
                source: "multitouchd:\(device)/\(target.id)@\(host)", maximumDatagramBytes: maximumDatagramBytes)
        let datagrams = encoder.encode(frame)
        encoders[key] = encoder
        bundles += UInt64(datagrams.count)
        for datagram in datagrams { target.sender.send(datagram) }
    }
}
