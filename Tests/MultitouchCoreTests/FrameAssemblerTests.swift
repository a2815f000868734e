import MultitouchCore
import Testing

@Suite("Frame assembler")
struct FrameAssemblerTests {
    private func event(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32 = 0) -> InputEvent {
        InputEvent(time: Timestamp(microseconds: ms * 1000), type: type, code: code, value: value)
    }

    @Test("frames end at SYN_REPORT and keep SYN_MT_REPORT inside")
    func wholeFrames() {
        var assembler = FrameAssembler()
        let input = [
            event(1, EventType.abs, AbsCode.mtPositionX, 5), event(1, EventType.syn, SynCode.mtReport),
            event(1, EventType.key, KeyCode.btnTouch, 1), event(1, EventType.syn, SynCode.report),
            event(2, EventType.syn, SynCode.report),
        ]
        let outputs = input.compactMap { assembler.push($0) }
        #expect(
            outputs == [
                .frame(EventFrame(events: Array(input[0...2]), time: Timestamp(microseconds: 1000))),
                .frame(EventFrame(events: [], time: Timestamp(microseconds: 2000))),
            ])
        #expect(assembler.pendingCount == 0)
    }

    @Test("SYN_DROPPED discards the partial frame and everything up to the next SYN_REPORT, and says so")
    func dropped() {
        var assembler = FrameAssembler()
        #expect(assembler.push(event(1, EventType.abs, AbsCode.mtPositionX, 5)) == nil)
        #expect(assembler.push(event(1, EventType.abs, AbsCode.mtPositionY, 6)) == nil)
        #expect(assembler.push(event(2, EventType.syn, SynCode.dropped)) == nil)
        #expect(assembler.push(event(3, EventType.abs, AbsCode.mtPositionX, 7)) == nil)
        #expect(assembler.pendingCount == 0)
        #expect(
            assembler.push(event(4, EventType.syn, SynCode.report))
                == .dropped(at: Timestamp(microseconds: 4000), discarded: 4))
        // The stream is whole again.
        #expect(assembler.push(event(5, EventType.abs, AbsCode.mtPositionX, 8)) == nil)
        #expect(
            assembler.push(event(5, EventType.syn, SynCode.report))
                == .frame(
                    EventFrame(
                        events: [event(5, EventType.abs, AbsCode.mtPositionX, 8)], time: Timestamp(microseconds: 5000)))
        )
    }

    @Test("a trailing partial frame can be taken, and the assembler starts clean afterwards")
    func partialTrailingFrame() {
        var assembler = FrameAssembler()
        _ = assembler.push(event(1, EventType.abs, AbsCode.mtPositionX, 5))
        _ = assembler.push(event(1, EventType.key, KeyCode.btnTouch, 1))
        #expect(assembler.pendingCount == 2)
        #expect(
            assembler.takePartialFrame() == [
                event(1, EventType.abs, AbsCode.mtPositionX, 5), event(1, EventType.key, KeyCode.btnTouch, 1),
            ])
        #expect(assembler.pendingCount == 0)
        #expect(assembler.takePartialFrame().isEmpty)
        _ = assembler.push(event(2, EventType.syn, SynCode.dropped))
        _ = assembler.takePartialFrame()
        #expect(
            assembler.push(event(3, EventType.syn, SynCode.report))
                == .frame(EventFrame(events: [], time: Timestamp(microseconds: 3000))))
    }

    @Test("a recorded resync (SYN_DROPPED value 1) comes out as one resync frame and keeps the stream whole")
    func recordedResync() {
        var assembler = FrameAssembler()
        let x = event(3, EventType.abs, AbsCode.mtPositionX, 7)
        #expect(assembler.push(event(2, EventType.syn, SynCode.dropped, SynDroppedValue.resyncFollows)) == nil)
        #expect(assembler.push(x) == nil)
        #expect(
            assembler.push(event(4, EventType.syn, SynCode.report))
                == .resync(
                    EventFrame(events: [x], time: Timestamp(microseconds: 4000), isResync: true),
                    droppedAt: Timestamp(microseconds: 2000)))
        #expect(assembler.push(event(5, EventType.abs, AbsCode.mtPositionX, 8)) == nil)
        #expect(
            assembler.push(event(5, EventType.syn, SynCode.report))
                == .frame(
                    EventFrame(
                        events: [event(5, EventType.abs, AbsCode.mtPositionX, 8)], time: Timestamp(microseconds: 5000)))
        )
        // Cut off before its SYN_REPORT, the resync's events are the trailing partial frame.
        _ = assembler.push(event(6, EventType.syn, SynCode.dropped, SynDroppedValue.resyncFollows))
        _ = assembler.push(x)
        #expect(assembler.takePartialFrame() == [x])
        #expect(
            assembler.push(event(7, EventType.syn, SynCode.report))
                == .frame(EventFrame(events: [], time: Timestamp(microseconds: 7000))))
    }
}
