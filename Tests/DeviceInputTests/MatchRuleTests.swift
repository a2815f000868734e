import Configuration
import MultitouchCore
import Testing

@testable import DeviceInput

@Suite struct MatchRuleTests {
    func rule(
        _ action: DeviceRule.Action, name: String? = nil, path: String? = nil, deviceClass: DeviceClass? = nil,
        grab: Bool? = nil
    ) -> DeviceRule {
        var rule = DeviceRule()
        rule.action = action
        rule.name = name
        rule.path = path
        rule.deviceClass = deviceClass
        rule.grab = grab
        return rule
    }

    func matcher(_ rules: [DeviceRule], grab: Bool = false) -> DeviceMatcher {
        var configuration = DevicesConfiguration()
        configuration.rules = rules
        configuration.grab = grab
        return DeviceMatcher(configuration: configuration)
    }

    @Test func defaultServesTouchscreensAndTouchpadsWithoutGrab() {
        let m = matcher([])
        let screen = m.decide(path: "/dev/input/event3", description: touchscreenDescription())
        #expect(screen.action == .serve(grab: false))
        #expect(screen.ruleIndex == nil)
        #expect(screen.deviceClass == .touchscreen)
        #expect(screen.reason == "default: touchscreens are served")
        let pad = m.decide(path: "/dev/input/event4", description: touchpadDescription())
        #expect(pad.action == .serve(grab: false))
        #expect(pad.deviceClass == .touchpad)
    }

    @Test func defaultSkipsAKeyboardAndSaysWhy() {
        let decision = matcher([]).decide(path: "/dev/input/event0", description: keyboardDescription())
        #expect(decision.action == .skip)
        #expect(decision.deviceClass == .other)
        #expect(decision.reason == "default: not a touchscreen or touchpad (no absolute position axes)")
    }

    /// The stylus node hid-multitouch makes for a panel's pen (N-Trig, Nexio, IRTouch, Atmel, as in the
    /// device matrix, issue 31): INPUT_PROP_DIRECT, pen keys, single-touch axes.
    func penDescription() -> DeviceDescription {
        let x = AxisInfo(minimum: 0, maximum: 9600, resolution: 40)
        let y = AxisInfo(minimum: 0, maximum: 7200, resolution: 40)
        return DeviceDescription(
            name: "N-Trig Pen", identity: DeviceIdentity(bustype: 3, vendor: 0x1b96, product: 0x0001, version: 1),
            properties: [InputProperty.direct],
            codes: [
                EventType.syn: [SynCode.report],
                EventType.key: [KeyCode.btnTouch, KeyCode.btnToolPen, KeyCode.btnToolRubber, KeyCode.btnStylus],
            ],
            axes: [AbsCode.x: x, AbsCode.y: y, AbsCode.pressure: AxisInfo(minimum: 0, maximum: 255)])
    }

    @Test func aPenNodeIsNotServedAsATouchscreenAndTheReasonSaysPen() {
        let decision = matcher([]).decide(path: "/dev/input/event7", description: penDescription())
        #expect(decision.action == .skip)
        #expect(decision.deviceClass == .other)
        #expect(decision.classReason.hasPrefix("pen (BTN_TOOL_PEN/BTN_STYLUS"))
        #expect(decision.reason.contains("not a finger"))
        // An include rule cannot make it a finger device either.
        let included = matcher([rule(.include, name: "N-Trig*")]).decide(
            path: "/dev/input/event7", description: penDescription())
        #expect(included.action == .skip)
        #expect(included.reason.contains("not a touch device (pen"))
    }

    @Test func aPanelWithFingersAndAPenKeyStaysATouchscreen() {
        // Multitouch axes mean finger contacts: such a node keeps its class.
        var description = touchscreenDescription()
        description.codes[EventType.key, default: []].insert(KeyCode.btnToolPen)
        #expect(description.classification.deviceClass == .touchscreen)
    }

    @Test func excludeByNameGlob() {
        let decision = matcher([rule(.exclude, name: "Test MT*")]).decide(
            path: "/dev/input/event3", description: touchscreenDescription())
        #expect(decision.action == .skip)
        #expect(decision.ruleIndex == 0)
        #expect(decision.reason == "excluded by rule 1 (exclude name \"Test MT*\")")
    }

    @Test func aNameGlobThatDoesNotMatchFallsThroughToTheDefault() {
        let decision = matcher([rule(.exclude, name: "Wacom*")]).decide(
            path: "/dev/input/event3", description: touchscreenDescription())
        #expect(decision.serves)
        #expect(decision.ruleIndex == nil)
    }

    @Test func firstMatchingRuleDecides() {
        let rules = [rule(.include, path: "/dev/input/event3", grab: true), rule(.exclude, deviceClass: .touchscreen)]
        let m = matcher(rules)
        let first = m.decide(path: "/dev/input/event3", description: touchscreenDescription())
        #expect(first.action == .serve(grab: true))
        #expect(first.ruleIndex == 0)
        let other = m.decide(path: "/dev/input/event5", description: touchscreenDescription())
        #expect(other.action == .skip)
        #expect(other.ruleIndex == 1)
        #expect(other.reason == "excluded by rule 2 (exclude class touchscreen)")
    }

    @Test func everyMatcherOfARuleMustMatch() {
        let r = rule(.exclude, name: "Test*", deviceClass: .touchpad)
        let m = matcher([r])
        #expect(m.decide(path: "/dev/input/event3", description: touchscreenDescription()).serves)
        #expect(!m.decide(path: "/dev/input/event4", description: touchpadDescription()).serves)
    }

    @Test func pathGlobMatchesALinkToTheNode() {
        let m = matcher([rule(.exclude, path: "/dev/input/by-id/*Clickpad*")])
        let decision = m.decide(
            path: "/dev/input/event4", links: ["/dev/input/by-id/usb-Test_Clickpad-event-mouse"],
            description: touchpadDescription())
        #expect(decision.action == .skip)
        #expect(decision.reason.contains("via /dev/input/by-id/usb-Test_Clickpad-event-mouse"))
    }

    @Test func grabFollowsTheConfigurationDefaultUnlessTheRuleSetsIt() {
        #expect(matcher([], grab: true).decide(path: "/dev/input/event3", description: touchscreenDescription()).grabs)
        let ruleSaysNo = matcher([rule(.include, deviceClass: .touchscreen, grab: false)], grab: true)
        #expect(!ruleSaysNo.decide(path: "/dev/input/event3", description: touchscreenDescription()).grabs)
        let inherits = matcher([rule(.include, deviceClass: .touchscreen)], grab: true)
        #expect(inherits.decide(path: "/dev/input/event3", description: touchscreenDescription()).grabs)
    }

    @Test func includingANonTouchDeviceStillSkipsIt() {
        let decision = matcher([rule(.include, name: "*keyboard*")]).decide(
            path: "/dev/input/event0", description: keyboardDescription())
        #expect(decision.action == .skip)
        #expect(decision.ruleIndex == 0)
        #expect(decision.reason.contains("not a touch device"))
    }

    @Test func aRuleWithoutMatchersMatchesEverything() {
        let decision = matcher([rule(.exclude)]).decide(
            path: "/dev/input/event3", description: touchscreenDescription())
        #expect(decision.action == .skip)
        #expect(decision.reason == "excluded by rule 1 (exclude matches every device)")
    }

    @Test func includeCarriesTheRulesOutputAndSize() {
        var r = rule(.include, deviceClass: .touchscreen)
        r.output = OutputMapping(width: 1920, height: 1080, rotation: 90)
        r.sizeMillimeters = [300, 200]
        let decision = matcher([r]).decide(path: "/dev/input/event3", description: touchscreenDescription())
        #expect(decision.output == OutputMapping(width: 1920, height: 1080, rotation: 90))
        #expect(decision.sizeMillimeters == [300, 200])
    }

    @Test(arguments: [
        ("*Touch*", "Atmel maXTouch Touchscreen", true), ("event[0-9]", "event7", true),
        ("event[0-9]", "event17", false),
        ("Syn?PS2*", "SynPS2 Synaptics TouchPad", false), ("SynPS?*", "SynPS2 Synaptics TouchPad", true),
        ("/dev/input/*", "/dev/input/by-id/x", true),
    ])
    func globs(_ pattern: String, _ text: String, _ expected: Bool) {
        #expect(Glob.matches(pattern, text) == expected)
    }
}
