// swift-tools-version:6.0
// multitouchd: a Linux multitouch gesture daemon. See docs/architecture.md for the module map.
import PackageDescription

/// Settings shared by every Swift target: strict about existentials so protocol costs stay visible.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// How the shipped executables are linked in release builds (issue 29 item 9, docs/SERVICE.md
/// "Package size"): the toolchain's lld, --no-export-dynamic (the static runtime's link arguments
/// export every symbol of ours, which an executable has no use for) and packed relative relocations
/// (DT_RELR, glibc 2.36: Debian 12). 18.0 MB -> 16.3 MB for the daemon alone. Link settings only, so
/// every release build shares its compiled modules with `make build`.
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
        .when(platforms: [.linux], configuration: .release))
]

let package = Package(
    name: "multitouchd",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "multitouchd", targets: ["multitouchd"]),
        .executable(name: "multitouchctl", targets: ["multitouchctl"]),
        .library(name: "MultitouchClient", targets: ["MultitouchClient"]),
        .library(name: "MultitouchTestKit", targets: ["MultitouchTestKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The browser bridge only: NIOHTTP1 and NIOWebSocket (a clean debug build adds about 40 s).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // C libraries from Debian packages (libevdev-dev, libudev-dev), found through pkg-config.
        .systemLibrary(name: "CLibevdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CLibudev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // libyaml (libyaml-dev) for libinput record files: Yams would bring Foundation, and with it ICU's
        // 34 MB of data, into both binaries (issue 29 item 9).
        .systemLibrary(name: "CLibYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // Header-only: epoll, timerfd, signalfd and SO_PEERCRED, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CLinuxSystem"),
        // The one syscall wrapper: EINTR retried in one place, one error type carrying the call and errno.
        .target(name: "SystemCalls", dependencies: ["CLinuxSystem"], swiftSettings: strict),

        // The vocabulary the protocol, the clients, the engine and the router share (issue 32): touches,
        // time, points, transforms, regions, gesture events and settings. Value types only.
        .target(name: "TouchVocabulary", swiftSettings: strict),

        // Pure pipeline: no clocks, no device I/O.
        .target(name: "MultitouchCore", dependencies: ["TouchVocabulary"], swiftSettings: strict),
        .target(
            name: "Gestures",
            dependencies: ["MultitouchCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .target(name: "Recordings", dependencies: ["MultitouchCore", "CLibYAML"], swiftSettings: strict),
        .target(
            name: "TouchRouting", dependencies: ["TouchVocabulary", "MultitouchCore", "Gestures"], swiftSettings: strict
        ),
        // Predicted touches (issue 20): per-touch predictors and their scoring against recordings.
        .target(name: "Prediction", dependencies: ["MultitouchCore"], swiftSettings: strict),
        // The socket protocol: its value types come from TouchVocabulary alone, so a client links none
        // of the engine (scripts/check-imports.py: CLIENT_MAY_LINK).
        .target(name: "WireProtocol", dependencies: ["TouchVocabulary"], swiftSettings: strict),
        .target(
            name: "TouchPipeline",
            dependencies: [
                "MultitouchCore", "Gestures", "Recordings", "TouchRouting", "Prediction",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The pipeline's typed output as wire messages, encoded once, and the per-client queues: pure
        // (no sockets, no clock), shared by the daemon and multitouchctl.
        .target(
            name: "Publishing",
            dependencies: [
                "MultitouchCore", "Gestures", "WireProtocol", "TouchPipeline", "TouchRouting", "Recordings",
                "Prediction", "Configuration", "TouchScripting",
            ],
            swiftSettings: strict),
        .target(
            name: "GestureFeel",
            dependencies: ["MultitouchCore", "Gestures", "TouchPipeline", "Recordings", "TouchScripting"],
            swiftSettings: strict),
        // Pictures of a replay (multitouchctl plot): SVG from the pipeline's typed output, PNG via rsvg-convert.
        .target(
            name: "TouchPlot",
            dependencies: ["TouchVocabulary", "MultitouchCore", "TouchPipeline", "Recordings", "SystemCalls"],
            swiftSettings: strict),
        // TUIO 1.1 encoding (OSC bundles) of touch frames: pure, like the pipeline.
        .target(name: "TUIO", dependencies: ["MultitouchCore"], swiftSettings: strict),
        .target(
            name: "Configuration",
            dependencies: ["TouchVocabulary", "MultitouchCore", "SystemCalls"],
            swiftSettings: strict),

        // Edges: devices, sockets, the daemon.
        .target(
            name: "DeviceInput",
            dependencies: [
                "MultitouchCore", "CLibevdev", "CLibudev", "Configuration", "SystemCalls",
            ],
            swiftSettings: strict),
        // The TUIO sender (UDP): shared by the daemon's [tuio] targets and `multitouchctl tuio`.
        .target(
            name: "TUIOOutput",
            dependencies: [
                "TUIO", "Configuration", "WireProtocol", "MultitouchCore", "TouchPipeline", "TouchRouting",
                "Publishing", "SystemCalls",
            ],
            swiftSettings: strict),
        .target(
            name: "MultitouchServer",
            dependencies: [
                "TouchVocabulary", "MultitouchCore", "WireProtocol", "TouchPipeline", "Publishing", "TouchRouting",
                "Recordings", "Configuration", "DeviceInput", "CLinuxSystem", "TUIOOutput", "SystemCalls",
                "Prediction",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "MultitouchClient",
            dependencies: ["WireProtocol", "TouchVocabulary", "SystemCalls"],
            swiftSettings: strict),
        // The browser pages and the JavaScript client, embedded in the binary so `multitouchctl bridge`
        // and `view` serve them from any directory. The files live in clients/js, where programmers look.
        .target(
            name: "WebAssets",
            path: "clients/js",
            exclude: ["README.md", "test_client.mjs"],
            sources: ["WebAssets.swift"],
            resources: [
                .embedInCode("multitouch.js"), .embedInCode("demo.html"), .embedInCode("view.html"),
                .embedInCode("view.js"), .embedInCode("index.html"), .embedInCode("map.svg"),
            ],
            swiftSettings: strict),
        // The WebSocket bridge: browsers <-> the daemon's Unix socket, one daemon connection per browser.
        .target(
            name: "WebBridge",
            dependencies: [
                "WebAssets", "WireProtocol", "SystemCalls",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // Test devices, scripted fingers, the fixtures and benchmark recordings: shipped, since multitouchctl
        // generate, bench and feel use them. MultitouchTestKit re-exports it for the tests.
        .target(name: "TouchScripting", dependencies: ["MultitouchCore"], swiftSettings: strict),
        .target(
            name: "MultitouchTestKit",
            dependencies: ["MultitouchCore", "TouchScripting"],
            swiftSettings: strict),

        // The daemon's command (options, configuration, logging), a library so that multitouchctl can be
        // the daemon too: the package ships one binary under both names (issue 29 item 9).
        .target(
            name: "DaemonCommand",
            dependencies: [
                "MultitouchServer", "Configuration", "Recordings", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Thin executables.
        .executableTarget(
            name: "multitouchd", dependencies: ["DaemonCommand"], swiftSettings: strict, linkerSettings: releaseLinking),
        .executableTarget(
            name: "multitouchctl",
            dependencies: [
                "TouchVocabulary", "MultitouchCore", "Recordings", "WireProtocol", "TouchPipeline", "Publishing",
                "DeviceInput",
                "MultitouchClient", "TouchScripting", "Configuration", "GestureFeel", "TouchPlot", "WebBridge",
                "TouchRouting", "TUIO", "TUIOOutput", "Prediction", "SystemCalls", "DaemonCommand", "MultitouchServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict, linkerSettings: releaseLinking),

        // Fuzzing (docs/FUZZING.md): the harnesses, which swift test replays on the regression corpus,
        // and the binary scripts/fuzz.sh builds with libFuzzer (a small replay tool in a normal build).
        .target(
            name: "FuzzHarnesses",
            dependencies: [
                "MultitouchCore", "Recordings", "Configuration", "Publishing", "WireProtocol", "TouchRouting",
                "TouchVocabulary", "WebBridge", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .executableTarget(name: "multitouch-fuzz", dependencies: ["FuzzHarnesses"], swiftSettings: strict),

        .testTarget(name: "MultitouchCoreTests", dependencies: ["MultitouchCore", "MultitouchTestKit"]),
        .testTarget(
            name: "GesturesTests", dependencies: ["Gestures", "MultitouchCore", "MultitouchTestKit", "Recordings"]),
        .testTarget(name: "PredictionTests", dependencies: ["Prediction", "MultitouchCore", "MultitouchTestKit"]),
        .testTarget(name: "GestureFeelTests", dependencies: ["GestureFeel", "Gestures"]),
        .testTarget(
            name: "TouchRoutingTests",
            dependencies: ["TouchRouting", "Gestures", "MultitouchCore", "MultitouchTestKit"]),
        .testTarget(name: "RecordingsTests", dependencies: ["Recordings", "MultitouchCore", "MultitouchTestKit"]),
        .testTarget(
            name: "WireProtocolTests",
            dependencies: ["WireProtocol", "Gestures", "MultitouchCore", "MultitouchTestKit", "TouchRouting"]),
        .testTarget(
            name: "TouchPipelineTests",
            dependencies: [
                "TouchPipeline", "Publishing", "WireProtocol", "MultitouchTestKit", "Recordings", "TouchRouting",
                "Gestures",
                "MultitouchCore",
            ]),
        .testTarget(
            name: "PublishingTests",
            dependencies: [
                "Publishing", "TouchPipeline", "WireProtocol", "MultitouchTestKit", "Recordings", "TouchRouting",
                "Gestures", "MultitouchCore", "Configuration", "TouchScripting",
            ]),
        .testTarget(name: "MultitouchTestKitTests", dependencies: ["MultitouchTestKit", "MultitouchCore"]),
        .testTarget(name: "MultitouchClientTests", dependencies: ["MultitouchClient"]),
        .testTarget(
            name: "TouchPlotTests",
            dependencies: [
                "TouchPlot", "TouchPipeline", "Recordings", "MultitouchTestKit", "MultitouchCore", "Gestures",
            ]),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration", "Gestures", "MultitouchCore"]),
        .testTarget(
            name: "TUIOTests",
            dependencies: [
                "TUIO", "TUIOOutput", "Configuration", "WireProtocol", "MultitouchCore", "TouchRouting",
                "TouchPipeline", "TouchScripting", "Publishing",
            ]),
        .testTarget(name: "FuzzHarnessesTests", dependencies: ["FuzzHarnesses"]),
        .testTarget(
            name: "DeviceInputTests",
            dependencies: ["DeviceInput", "Configuration", "MultitouchCore", "CLibevdev", "SystemCalls"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(
            name: "MultitouchServerTests",
            dependencies: [
                "MultitouchServer", "MultitouchClient", "MultitouchTestKit", "TouchPipeline", "Publishing",
                "TouchRouting",
                "WireProtocol", "Recordings", "Configuration", "Gestures", "MultitouchCore", "DeviceInput",
                "SystemCalls", "TouchVocabulary",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "WebBridgeTests",
            dependencies: [
                "WebBridge",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]),
    ]
)
