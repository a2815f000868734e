import Configuration
import TouchPipeline
import TouchRouting
import WireProtocol

/// Requests sent to a device's pipeline and waiting for its answer (`PipelineAnswer`, by token), and
/// what an answer makes for the client that asked: its reply, a notice for everyone else (a device's
/// new transform), and, for a region answer, the switch of the asker's streams on the device
/// (`Subscriber.regionsChanged`). Pure: the daemon's request server and rehearsals share it.
public struct RequestAnswers {
    /// What the asker is waiting for.
    public enum Kind: Hashable, Sendable {
        case regions
        case recognized(region: String)
        case regionTransform(region: String)
        case transform
        case listRegions
    }

    private struct Pending {
        var client: Int
        var id: RequestID?
        var kind: Kind
    }
    private var pending: [UInt64: Pending] = [:]
    private var nextToken: UInt64 = 1

    public init() {}

    /// Remembers a request; returns the token to send it to the pipeline with.
    public mutating func register(client: Int, id: RequestID?, kind: Kind) -> UInt64 {
        let token = nextToken
        nextToken &+= 1
        pending[token] = Pending(client: client, id: id, kind: kind)
        return token
    }

    /// The client whose request `answer` answers; nil for a token nobody waits for (spent, or its
    /// client is gone).
    public func client(of answer: PipelineAnswer) -> Int? { pending[answer.token]?.client }

    /// What an answer makes, for the client that asked (`subscriber`, whose streams switch on a region
    /// answer; `sessionOpen`: a whole-device session is open on the device, so the switch waits;
    /// `listing`: how a `listRegions` answer's region shows to the asker, nil where it may not see it).
    /// Nil when nobody waits for it.
    public mutating func reply(
        to answer: PipelineAnswer, subscriber: inout Subscriber, sessionOpen: Bool,
        listing: (RegionEntry) -> RegionListing? = { _ in nil }
    ) -> (message: Message, notice: Message?)? {
        guard let asked = pending.removeValue(forKey: answer.token) else { return nil }
        let device = answer.device
        let id = asked.id
        switch answer.outcome {
        case .rejected(let error):
            return (.error(Subscriber.refusal(error, id: id)), nil)
        case .regions(let ids):
            subscriber.regionsChanged(device: device, routed: !ids.isEmpty, sessionOpen: sessionOpen)
            return (.regions(RegionsMessage(id: id, device: device, regions: ids)), nil)
        case .recognized:
            guard case .recognized(let region) = asked.kind else { return nil }
            return (.recognized(RecognizedMessage(id: id, device: device, region: region)), nil)
        case .transform(let matrix):
            switch asked.kind {
            case .regionTransform(let region):
                return (.transform(TransformMessage(id: id, device: device, matrix: matrix, region: region)), nil)
            case .transform, .regions, .recognized, .listRegions:
                // Everyone else drawing this device's content learns of the new base too.
                return (
                    .transform(TransformMessage(id: id, device: device, matrix: matrix)),
                    .transform(TransformMessage(id: nil, device: device, matrix: matrix))
                )
            }
        case .listing(let entries):
            return (.regionList(RegionListMessage(id: id, device: device, regions: entries.compactMap(listing))), nil)
        case .done:
            return nil
        }
    }

    /// A client left: its requests waiting for an answer are forgotten.
    public mutating func forget(client: Int) {
        pending = pending.filter { $0.value.client != client }
    }
}

extension PredictionRequests {
    /// Who asked for predictions of `device` among `subscribers`: the horizons of the clients whose
    /// whole-device stream of it predicts (`Subscriber.predictsWholeDevice`), and every subscribed
    /// client's own horizon for its regions (each client has its own; DESIGN.md invariant 12).
    public init(subscribers: some Sequence<Subscriber>, device: Int) {
        self.init()
        for subscriber in subscribers where subscriber.subscription != nil {
            guard let h = subscriber.predictMilliseconds else { continue }
            clients[ClientID(UInt64(subscriber.id))] = h
            if subscriber.predictsWholeDevice(device) { wholeDevice.insert(h) }
        }
    }
}

extension RegionListing {
    /// A device's region as the asking client may see it in a `regionList`: root (`seesAll`) sees every
    /// region, anyone else the regions of its own user's connections (`askerUID`; the asker's own when
    /// its uid is unknown): processes of one uid are no secret to each other, another user's areas
    /// and the configuration's are. Nil where it may not see it. `peer` gives a client's pid and uid
    /// (nil: unknown, shown as -1).
    public init?(
        _ entry: RegionEntry, asker: ClientID, askerUID: UInt32? = nil, seesAll: Bool,
        peer: (ClientID) -> (pid: Int, uid: Int)?
    ) {
        let known = entry.configured == nil ? peer(entry.client) : nil
        let sameUser = askerUID.map { uid in known.map { $0.uid == Int(uid) } ?? false } ?? false
        guard seesAll || entry.client == asker || sameUser else { return nil }
        let owner: RegionOwner
        if let label = entry.configured {
            owner = .configuration(label)
        } else {
            owner = .client(
                id: Int(truncatingIfNeeded: entry.client.rawValue), pid: known?.pid ?? -1, uid: known?.uid ?? -1)
        }
        let region = entry.region
        self.init(
            region: region.id, owner: owner, z: region.z, band: entry.band, mode: region.mode,
            exclusive: region.options.exclusive, hidden: region.hidden, disabled: region.disabled,
            bounds: region.shape.bounds)
    }
}
