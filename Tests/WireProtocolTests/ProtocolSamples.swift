import Gestures
import MultitouchCore
import TouchRouting
import WireProtocol

/// At least one value of every message and every request the protocol defines, with optional fields
/// both present and absent. The round-trip tests encode and decode each; the golden files under
/// checks/protocol/golden/ are these values encoded (one file per type, one line per value), and the
/// Python client's tests read the same files.
enum ProtocolSamples {
    static let screen = DeviceInfo(
        id: 1, name: "Atmel maXTouch \"Digitizer\"", source: "/dev/input/event5", deviceClass: .touchscreen,
        multitouchProtocol: .b, slots: 10, isSemiMT: false, units: .pixels, width: 1920, height: 1080,
        widthMillimeters: 293.5, heightMillimeters: 165.25, sizeSource: "resolution")
    static let pad = DeviceInfo(
        id: 2, name: "SynPS/2 Synaptics TouchPad", source: "touchpad.evemu", deviceClass: .touchpad,
        multitouchProtocol: .a, slots: 2, isSemiMT: true, units: .millimeters, width: 100, height: 60.5,
        widthMillimeters: 100, heightMillimeters: 60.5, sizeSource: "nominal size")

    static let time = Timestamp(microseconds: 1_357_751_031_716_015)
    static let matrix = AffineTransform(a: 1.25, b: 0.5, c: -0.5, d: 1.25, tx: 12.75, ty: -3)

    static let update = GestureUpdate(
        session: 3, seq: 9_007_199_254_740_993, time: time, phase: .changed, mode: .pinchRotate, fingers: 2,
        centroid: Point(x: 640.5, y: 360.25), translation: Point(x: -4.5, y: 0.125), scale: 1.5,
        rotation: 0.1, velocity: GestureVelocity(translation: Point(x: 10, y: -20.5), scale: 0.75, rotation: -0.25),
        matrix: matrix)

    static let messages: [Message] = [
        .hello(HelloMessage(daemon: "multitouchd 0.1.0", devices: [screen, pad])),
        .hello(HelloMessage(daemon: "multitouchd 0.1.0", devices: [])),
        .hello(HelloMessage(daemon: "multitouchd 0.2.0", devices: [screen], features: ["regions"])),
        .deviceAdded(screen),
        .deviceAdded(pad),
        .deviceRemoved(DeviceRemovedMessage(device: 1, time: time, reason: "device removed")),
        .deviceRemoved(DeviceRemovedMessage(device: 2, time: nil, reason: "end of recording")),
        .touches(
            TouchesMessage(
                device: 1, time: time, fingers: 2, isSemiMT: false,
                touches: [
                    TouchPoint(
                        id: 7, phase: .began, location: Point(x: 100.5, y: 200),
                        previousLocation: Point(x: 100.5, y: 200),
                        normalized: Point(x: 0.0523, y: 0.185), millimeters: Point(x: 15.25, y: 30.5), slot: 0,
                        tapCount: 1, type: .direct, majorRadius: 3.5, minorRadius: 2.25, orientation: -0.5, force: 0.75),
                    TouchPoint(
                        id: 8, phase: .moved, location: Point(x: 300, y: 400.75),
                        previousLocation: Point(x: 298, y: 401),
                        normalized: Point(x: 0.15625, y: 0.371), millimeters: Point(x: 45.8, y: 61.2), slot: 1,
                        tapCount: 2, type: .direct),
                ])),
        .touches(
            TouchesMessage(
                device: 2, time: Timestamp(microseconds: 5), fingers: 0, isSemiMT: true,
                touches: [
                    TouchPoint(
                        id: 9, phase: .cancelled, location: Point(x: 1, y: 2), previousLocation: Point(x: 1, y: 2),
                        normalized: Point(x: 0.01, y: 0.03), millimeters: Point(x: 1, y: 2), slot: 0, tapCount: 0,
                        type: .indirect)
                ])),
        .touches(
            TouchesMessage(
                device: 1, time: time, fingers: 1, isSemiMT: false,
                touches: [
                    TouchPoint(
                        id: 12, phase: .began, location: Point(x: 120, y: 40), previousLocation: Point(x: 120, y: 40),
                        normalized: Point(x: 0.0625, y: 0.037), millimeters: Point(x: 18, y: 6), slot: 2, tapCount: 1,
                        type: .direct)
                ], routing: TouchesRouting(region: "toolbar", role: .owner))),
        .touches(
            TouchesMessage(
                device: 1, time: time, fingers: 0, isSemiMT: false,
                touches: [
                    TouchPoint(
                        id: 13, phase: .cancelled, location: Point(x: 5, y: 6), previousLocation: Point(x: 5, y: 6),
                        normalized: Point(x: 0.002, y: 0.005), millimeters: Point(x: 1, y: 1), slot: 3, tapCount: 1,
                        type: .direct)
                ], routing: TouchesRouting(region: "fluid", role: .observer, reason: .claimed))),
        // A client that asked for predictions (subscribe "predictMs", replay --predict-ms).
        .touches(
            TouchesMessage(
                device: 1, time: time, fingers: 1, isSemiMT: false,
                touches: [
                    TouchPoint(
                        id: 14, phase: .moved, location: Point(x: 310, y: 402),
                        previousLocation: Point(x: 300, y: 400.75),
                        normalized: Point(x: 0.16, y: 0.372), millimeters: Point(x: 47.5, y: 61.5), slot: 1,
                        tapCount: 1,
                        type: .direct, predicted: Point(x: 326.25, y: 404.5))
                ])),
        // A frame-aligned client's frame (subscribe "frames", replay --frame-period-us): raw samples coalesced.
        .touches(
            TouchesMessage(
                device: 1, time: time, fingers: 1, isSemiMT: false,
                touches: [
                    {
                        var point = TouchPoint(
                            id: 14, phase: .moved, location: Point(x: 310, y: 402),
                            previousLocation: Point(x: 300, y: 400.75), normalized: Point(x: 0.16, y: 0.372),
                            millimeters: Point(x: 47.5, y: 61.5), slot: 1, tapCount: 1, type: .direct)
                        point.coalesced = [
                            CoalescedSample(
                                location: Point(x: 305.5, y: 401), time: Timestamp(microseconds: 1_357_751_031_708_015)),
                            CoalescedSample(location: Point(x: 312, y: 402.5), time: time),
                        ]
                        return point
                    }()
                ])),
        .gesture(
            GestureMessage(
                device: 1,
                event: .update(
                    GestureUpdate(
                        session: 6, seq: 12, time: time, phase: .changed, mode: .pan, fingers: 1,
                        centroid: Point(x: 310, y: 402), translation: Point(x: 10, y: 1.25), scale: 1, rotation: 0,
                        velocity: GestureVelocity(translation: Point(x: 600, y: 75), scale: 0, rotation: 0),
                        matrix: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 10, ty: 1.25))),
                predictedMatrix: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 26.25, ty: 3.5))),
        .gesture(GestureMessage(device: 1, event: .sessionBegan(session: 1, time: time), region: "toolbar")),
        .gesture(
            GestureMessage(
                device: 1, event: .tap(session: 1, time: time, location: Point(x: 120, y: 40), tapCount: 1, fingers: 1),
                region: "toolbar")),
        .gesture(GestureMessage(device: 1, event: .sessionBegan(session: 3, time: time))),
        .gesture(GestureMessage(device: 1, event: .sessionEnded(session: 3, time: time, cancelled: false))),
        .gesture(GestureMessage(device: 2, event: .sessionEnded(session: 4, time: time, cancelled: true))),
        .gesture(GestureMessage(device: 1, event: .update(update))),
        .gesture(
            GestureMessage(
                device: 1,
                event: .update(
                    GestureUpdate(
                        session: 3, seq: 0, time: time, phase: .began, mode: .pan, fingers: 1,
                        centroid: Point(x: 0, y: 0),
                        translation: .zero, scale: 1, rotation: 0, velocity: .zero, matrix: .identity)))),
        .gesture(
            GestureMessage(
                device: 1,
                event: .tap(session: 5, time: time, location: Point(x: 10.5, y: 20.25), tapCount: 2, fingers: 1))),
        .gesture(
            GestureMessage(
                device: 1, event: .doubleTap(session: 5, time: time, location: Point(x: 10.5, y: 20.25), matrix: matrix)
            )),
        .gesture(
            GestureMessage(
                device: 1,
                event: .longPress(session: 6, time: time, phase: .began, location: Point(x: 50, y: 60), fingers: 1))),
        .gesture(
            GestureMessage(
                device: 1,
                event: .longPress(session: 6, time: time, phase: .cancelled, location: Point(x: 51, y: 60), fingers: 1))
        ),
        .dropped(DroppedMessage(device: 1, time: time, count: 12, unit: .events, reason: "SYN_DROPPED")),
        .dropped(
            DroppedMessage(
                device: 1, time: time, count: 1, unit: .overflows, reason: "SYN_DROPPED: kernel buffer overflowed")),
        .dropped(DroppedMessage(device: nil, time: nil, count: 40, unit: .messages, reason: "client queue full")),
        .error(ErrorMessage(.badField, "unknown field \"x\" in ping", id: RequestID(9_007_199_254_740_993))),
        .error(ErrorMessage(.lineTooLong, "request line longer than 65536 bytes (newline included)")),
        .error(ErrorMessage(.recording, "line 12: trailing partial frame\twithout SYN_REPORT")),
        .error(ErrorMessage(.overBudget, "over budget: regions_per_client: 257 > 256", id: RequestID(4))),
        .error(
            ErrorMessage(
                .forbidden,
                "missing right \"transform\" (the daemon's [access] configuration does not grant it to uid 1001)",
                id: RequestID("t"))),
        .pong(PongMessage(id: RequestID("a\"b"))),
        .pong(PongMessage(id: nil)),
        .subscribed(SubscribedMessage(id: 1, streams: [.touches, .gestures, .devices], devices: .all)),
        .subscribed(SubscribedMessage(id: nil, streams: [.gestures], devices: .ids([3, 1]))),
        .subscribed(SubscribedMessage(id: 2, streams: [.touches, .gestures], devices: .all, predictMilliseconds: 16)),
        .subscribed(
            SubscribedMessage(
                id: 3, streams: [.touches], devices: .all, predictMilliseconds: 8, frameAligned: true,
                withheld: "whole-device touches and gestures: missing right \"observe\"")),
        .unsubscribed(UnsubscribedMessage(id: "u")),
        .unsubscribed(UnsubscribedMessage(id: nil)),
        .stats(
            StatsMessage(
                id: 4, uptime: 12.5,
                clients: [
                    ClientStatistics(
                        id: 1, pid: 4242, uid: 1000, subscribed: true, queued: 0, queuedBytes: 0, delivered: 1830,
                        dropped: 0),
                    ClientStatistics(
                        id: 2, pid: -1, uid: 0, subscribed: false, queued: 3, queuedBytes: 612, delivered: 3,
                        dropped: 7,
                        rights: ["observe", "regions"], band: [0, 99]),
                    ClientStatistics(id: 3, pid: -1, uid: -1, subscribed: true),
                ],
                devices: [
                    DeviceStatistics(device: 1, name: "Atmel maXTouch Touchscreen", frames: 412, active: true),
                    DeviceStatistics(
                        device: 2, name: "predicting", frames: 90, active: true,
                        predictions: [
                            PredictionStatistics(
                                horizonMilliseconds: 8, count: 85, meanMillimeters: 0.125, maximumMillimeters: 1.5),
                            PredictionStatistics(
                                horizonMilliseconds: 16, count: 85, meanMillimeters: 0.375, maximumMillimeters: 2.5),
                        ]),
                ],
                latency: LatencyStatistics(
                    count: 412, maximum: 61.2,
                    buckets: [LatencyBucket(lessThan: 16, count: 310), LatencyBucket(lessThan: 32, count: 102)],
                    deferred: 1, recent: RecentLatency(samples: 412, p50: 11.8, p99: 35.1)))),
        .stats(
            StatsMessage(
                id: nil, uptime: 0.25, clients: [], devices: [],
                latency: LatencyStatistics(count: 0, maximum: 0, buckets: [], deferred: 0, recent: nil))),
        .transform(TransformMessage(id: 2, device: 1, matrix: matrix)),
        .transform(TransformMessage(id: nil, device: 1, matrix: .identity)),
        .regions(RegionsMessage(id: 1, device: 1, regions: ["toolbar", "map"])),
        .regions(RegionsMessage(id: nil, device: 2, regions: [])),
        .recognized(RecognizedMessage(id: 6, device: 1, region: "map")),
        .transform(TransformMessage(id: 7, device: 1, matrix: matrix, region: "map")),
        .regionList(
            RegionListMessage(
                id: 10, device: 1,
                regions: [
                    RegionListing(
                        region: "pin", owner: .client(id: 3, pid: 4242, uid: 1001), z: 20, band: 0...99, mode: .opaque,
                        exclusive: true, hidden: false, disabled: false,
                        bounds: RegionRect(x: 1400, y: 300, width: 400, height: 500)),
                    RegionListing(
                        region: "qt", owner: .configuration("tuio.region[1] for qt-app"), z: 20,
                        band: Int.min...Int.max, mode: .opaque, exclusive: false, hidden: false, disabled: false,
                        bounds: RegionRect(x: 0, y: 780, width: 700, height: 300)),
                    RegionListing(
                        region: "shell", owner: .client(id: 4, pid: -1, uid: -1), z: 0, band: 0...1000,
                        mode: .observer, exclusive: false, hidden: true, disabled: false,
                        bounds: RegionRect(x: 0, y: 0, width: 1920, height: 1080.5)),
                ])),
        .regionList(RegionListMessage(id: nil, device: 2, regions: [])),
    ]

    static let requests: [ClientRequest] = [
        ClientRequest(.subscribe(streams: nil, devices: nil)),
        ClientRequest(.subscribe(streams: [.touches, .gestures], devices: .ids([1, 2])), id: 7),
        ClientRequest(.subscribe(streams: [.devices], devices: .all), id: "s"),
        ClientRequest(.subscribe(streams: [.touches, .gestures], devices: nil), id: 2, predictMilliseconds: 16),
        ClientRequest(.unsubscribe),
        ClientRequest(.ping, id: "a"),
        ClientRequest(.ping, id: 3),
        ClientRequest(.stats, id: 3),
        ClientRequest(.resetTransform(device: 1)),
        ClientRequest(.setTransform(device: 1, matrix: AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 10.5, ty: -3))),
        ClientRequest(.declareRegions(device: 1, regions: []), id: 4),
        ClientRequest(.declareRegions(device: 1, regions: [toolbar, map, background, lens]), id: 5),
        ClientRequest(.updateRegions(device: 2, regions: [map], remove: ["toolbar", "a\"b"]), id: "u"),
        ClientRequest(.updateRegions(device: 2, regions: [], remove: [])),
        ClientRequest(.recognized(device: 1, region: "map"), id: 6),
        ClientRequest(.subscribe(streams: [.touches, .gestures], devices: nil), id: 8, frameAligned: true),
        ClientRequest(.frame(time: Timestamp(microseconds: 1_357_751_031_733_015)), id: 9),
        ClientRequest(.listRegions(device: 1), id: 10),
        ClientRequest(.listRegions(device: 2)),
    ]

    /// The PROTOCOL.md example: a toolbar whose left 9 of 20 cells are solid, over a map.
    static let toolbar = Region(
        id: "toolbar", shape: .rectangle(RegionRect(x: 0, y: 0, width: 1920, height: 96)),
        mask: AlphaMask(columns: 20, rows: 1, solid: (0..<20).map { $0 < 9 }), z: 2, mode: .passthrough)
    static let map = Region(
        id: "map", shape: .rectangle(RegionRect(x: 0, y: 0, width: 1920, height: 1080)), z: 1,
        options: RegionOptions(cancelsTouchesOnRecognition: true, delaysTouchesUntilFailure: true, exclusive: true))
    static let background = Region(
        id: "fluid", shape: .rectangle(RegionRect(x: 0, y: 0, width: 1920, height: 1080)), z: -1, mode: .observer,
        options: RegionOptions(gestures: true))
    static let lens = Region(
        id: "lens", shape: .polygon([Point(x: 100, y: 100), Point(x: 300.5, y: 100), Point(x: 200, y: 250)]),
        hidden: true, disabled: true, options: RegionOptions(gestures: false))
}
