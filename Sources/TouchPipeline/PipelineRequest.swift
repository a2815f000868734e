import Gestures
import MultitouchCore
import TouchRouting

/// A client's request that a device's pipeline carries out: its regions (declare, update, a gesture its
/// own recogniser recognised, a region's transform), the device's transform, or the client leaving.
/// Typed in through `DevicePipeline.handle(_:token:into:)`; the answer comes out typed too, as a
/// `PipelineOutput.answer` in the device's output, followed by what the request cancelled. The daemon
/// keeps the token to find the request it answers (docs/architecture.md "Requests").
public enum PipelineRequest: Hashable, Sendable {
    /// `declareRegions`: the client's regions on the device become these (empty: none), within `grant`.
    case declareRegions(client: ClientID, regions: [Region], grant: RoutingGrant)
    /// `updateRegions`: some regions added or replaced by id, others removed, atomically.
    case updateRegions(client: ClientID, upserting: [Region], removing: [String], grant: RoutingGrant)
    /// `recognized`: the client's own recogniser recognised a gesture in its region.
    case recognized(client: ClientID, region: String)
    /// `setTransform`/`resetTransform` with a region: that region's cumulative transform (nil: identity).
    case setRegionTransform(client: ClientID, region: String, matrix: AffineTransform?)
    /// `setTransform`/`resetTransform` of the device: the whole-device view's cumulative transform.
    case setTransform(AffineTransform)
    /// The client disconnected: its regions vanish (what that cancels is for nobody: it is gone).
    case clientGone(ClientID)
    /// `listRegions`: every region of the device with its owner and band (the daemon decides who may
    /// see which).
    case listRegions
}

/// The answer to a `PipelineRequest`, in the device's output.
public struct PipelineAnswer: Hashable, Sendable {
    /// The caller's token of the request.
    public var token: UInt64
    public var device: Int
    public var outcome: Outcome

    /// What the request did.
    public enum Outcome: Hashable, Sendable {
        /// Region requests: the client's region ids now in force, in declaration order (empty: the
        /// client is not routed on the device any more).
        case regions([String])
        /// A transform request: the cumulative transform is now this.
        case transform(AffineTransform)
        /// `recognized` took effect (what it cancelled follows).
        case recognized
        /// `clientGone` took effect.
        case done
        /// Refused whole; nothing changed.
        case rejected(RoutingRequestError)
        /// `listRegions`: every region of the device, top first (highest z, then by client and
        /// declaration order).
        case listing([RegionEntry])
    }

    public init(token: UInt64, device: Int, outcome: Outcome) {
        self.token = token
        self.device = device
        self.outcome = outcome
    }
}

/// Who asked for predictions of a device, and at which horizon (docs/PREDICTION.md): every client
/// stream gets its client's own horizon, from one filter state per touch. Set on each pipeline by the
/// daemon when a subscription changes.
public struct PredictionRequests: Hashable, Sendable {
    /// Horizons (ms) of the clients whose whole-device stream of this device asked for predictions.
    public var wholeDevice: Set<Int>
    /// Each client's horizon for its regions' streams.
    public var clients: [ClientID: Int]

    public init(wholeDevice: Set<Int> = [], clients: [ClientID: Int] = [:]) {
        self.wholeDevice = wholeDevice
        self.clients = clients
    }

    /// Nobody asked.
    public static let none = PredictionRequests()

    public var isEmpty: Bool { wholeDevice.isEmpty && clients.isEmpty }
}
