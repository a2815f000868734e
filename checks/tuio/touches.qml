// An unmodified Qt Quick program as a TUIO client (run with -plugin TuioTouch:udp=PORT): prints the
// touch points Qt delivers (mode "points": a MultiPointTouchArea) or its PinchHandler's scale and
// rotation (mode "pinch"), one JSON object per console.log line. Nothing here knows about multitouchd.
// Command line: qml touches.qml -- WIDTH HEIGHT MODE. Two modes, two programs: a PinchHandler takes
// the touch grab from a MultiPointTouchArea in the same window, which then stops reporting.
import QtQuick

Window {
    id: root
    visible: true
    // A window with the device's aspect ratio keeps Qt's pinch isotropic, as the daemon's millimetres are.
    width: Number(argument(1, 800))
    height: Number(argument(2, 600))
    readonly property string mode: argument(3, "points")

    function argument(afterDash, fallback) {
        const args = Qt.application.arguments
        const dash = args.indexOf("--")
        return dash >= 0 && args.length > dash + afterDash ? args[dash + afterDash] : fallback
    }

    function report(what, points) {
        for (const p of points)
            console.log(JSON.stringify({kind: "point", event: what, id: p.pointId, x: p.x, y: p.y}))
    }

    MultiPointTouchArea {
        anchors.fill: parent
        enabled: root.mode === "points"
        mouseEnabled: false
        maximumTouchPoints: 20
        onPressed: (points) => root.report("pressed", points)
        onUpdated: (points) => root.report("moved", points)
        onReleased: (points) => root.report("released", points)
        onCanceled: (points) => root.report("canceled", points)
    }

    Item {
        anchors.fill: parent
        enabled: root.mode === "pinch"
        PinchHandler {
            id: pinch
            target: null
            // Activate on the first movement, so the pinch is measured from a frame the test can name.
            dragThreshold: 0
            onActiveChanged: console.log(JSON.stringify({kind: "pinch", event: active ? "began" : "ended",
                scale: pinch.activeScale, rotation: pinch.rotation,
                cx: pinch.centroid.scenePosition.x, cy: pinch.centroid.scenePosition.y}))
            onActiveScaleChanged: console.log(JSON.stringify({kind: "pinch", event: "changed",
                scale: pinch.activeScale, rotation: pinch.rotation}))
        }
    }

    Component.onCompleted: console.log(JSON.stringify({kind: "ready", mode: root.mode, width: root.width,
        height: root.height}))
}
