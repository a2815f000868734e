import Configuration
import Logging
import Publishing
import TUIOOutput
import WireProtocol

/// The daemon's TUIO output (`[tuio] targets`, docs/TUIO.md): a broadcaster fed every batch the
/// devices emit, before the clients' fan-out sees it. Kept out of DeviceHost and ClientHub: the hook
/// there is one observer call.
enum TUIOHook {
    /// The broadcaster for a configuration, nil when it names no target or the socket cannot be set up
    /// (logged; the daemon serves its socket clients either way).
    static func start(_ configuration: TUIOConfiguration, devices: Devices, logger: Logger) -> TUIOBroadcaster? {
        guard !configuration.targets.isEmpty else { return nil }
        let sender: UDPDatagramSender
        do {
            // Names resolve on the sender's own thread: a DNS server that does not answer must not
            // hold the loop (a reload once blocked it for 10 s, issue 28). The outcome is logged there.
            sender = try UDPDatagramSender(
                targets: configuration.targets,
                resolvedName: { [logger] target, outcome in
                    switch outcome {
                    case .success:
                        logger.info("tuio: target resolved", metadata: ["tuio.target": "\(target)"])
                    case .failure(let error):
                        logger.error(
                            "tuio: target does not resolve; nothing is sent to it",
                            metadata: ["tuio.target": "\(target)", "error": "\(error)"])
                    }
                })
        } catch {
            logger.error("tuio: not sending", metadata: ["error": "\(error)"])
            return nil
        }
        let broadcaster = TUIOBroadcaster(
            sender: sender, host: TUIOBroadcaster.localHostName(),
            maximumDatagramBytes: configuration.maximumDatagramBytes,
            lookup: { [unowned devices] id in
                devices.currentDevices().first { $0.id == id }.map(PipelineMessages.deviceInfo)
            },
            includes: configuration.touchpads ? nil : { $0.deviceClass == .touchscreen })
        for target in configuration.targets where !target.isLoopback {
            logger.notice("tuio: touches leave this machine", metadata: ["tuio.target": "\(target)"])
        }
        logger.info(
            "tuio: sending",
            metadata: ["tuio.targets": "\(configuration.targets.map(\.description).joined(separator: ","))"])
        return broadcaster
    }

    /// The `[[tuio.region]]` output for a configuration, nil when it declares no region target or its
    /// sockets cannot be set up (logged). Names resolve off the loop, as for `targets`.
    static func startRegions(_ configuration: TUIOConfiguration, logger: Logger) -> TUIORegionSender? {
        guard !configuration.regions.isEmpty else { return nil }
        do {
            let sender = try TUIORegionSender(
                regions: configuration.regions, host: TUIOBroadcaster.localHostName(),
                maximumDatagramBytes: configuration.maximumDatagramBytes
            ) { (target: TUIOTarget) throws(UDPSenderError) -> UDPDatagramSender in
                try UDPDatagramSender(
                    targets: [target],
                    resolvedName: { [logger] target, outcome in
                        if case .failure(let error) = outcome {
                            logger.error(
                                "tuio: region target does not resolve; nothing is sent to it",
                                metadata: ["tuio.target": "\(target)", "error": "\(error)"])
                        }
                    })
            }
            for region in configuration.regions where !region.target.isLoopback {
                logger.notice(
                    "tuio: a region's touches leave this machine",
                    metadata: ["tuio.region": "\(region.id)", "tuio.target": "\(region.target)"])
            }
            logger.info(
                "tuio: sending regions",
                metadata: [
                    "tuio.regions": "\(configuration.regions.map { "\($0.id)->\($0.target)" }.joined(separator: ","))"
                ])
            return sender
        } catch {
            logger.error("tuio: not sending the regions", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// What the region output sent, for the log when it stops.
    static func summary(_ regions: TUIORegionSender, logger: Logger) {
        let s = regions.statistics
        logger.info(
            "tuio: regions stopped",
            metadata: [
                "tuio.bundles": "\(regions.bundles)", "tuio.datagrams": "\(s.datagrams)",
                "tuio.failures": "\(s.failures)", "tuio.unresolved": "\(s.unresolved)",
            ])
    }

    /// What the broadcaster sent, for the log when it stops.
    static func summary(_ broadcaster: TUIOBroadcaster, logger: Logger) {
        let s = broadcaster.sender.statistics
        logger.info(
            "tuio: stopped",
            metadata: [
                "tuio.bundles": "\(broadcaster.bundles)", "tuio.datagrams": "\(s.datagrams)",
                "tuio.failures": "\(s.failures)", "tuio.unresolved": "\(s.unresolved)",
            ])
    }
}
