/// What the devices' side of the daemon asks of the event loop: its descriptors watched and its two
/// timers armed. The daemon's is `EventLoopDevices` (epoll and two timerfds); a test passes its own and
/// drives `DeviceHost` on virtual time.
protocol DeviceLoop: AnyObject {
    func watch(device id: Int, fd: Int32) throws(SystemError)
    func watchHotplug(fd: Int32) throws(SystemError)
    func unwatch(fd: Int32)
    /// Arms the gesture deadline timer at an absolute CLOCK_MONOTONIC time in ns (nil: disarms).
    func armDeadlines(at deadline: UInt64?)
    func acknowledgeDeadlines()
    /// Arms the replay pacing timer likewise.
    func armReplay(at deadline: UInt64?)
    func acknowledgeReplay()
}

/// The daemon's `DeviceLoop`: registrations in the `EventLoop`, timers on timerfds, whose wake-ups come
/// back as `LoopInput.deadlineDue` and `.replayDue`.
final class EventLoopDevices: DeviceLoop {
    private unowned let loop: EventLoop
    private var deadlineTimer: TimerFD
    private var replayTimer: TimerFD

    init(loop: EventLoop) throws(SystemError) {
        self.loop = loop
        deadlineTimer = try TimerFD()
        replayTimer = try TimerFD()
        try loop.add(deadlineTimer.fd, .deadlineTimer)
        try loop.add(replayTimer.fd, .replayTimer)
    }

    func watch(device id: Int, fd: Int32) throws(SystemError) { try loop.add(fd, .device(id)) }
    func watchHotplug(fd: Int32) throws(SystemError) { try loop.add(fd, .hotplug) }
    func unwatch(fd: Int32) { loop.remove(fd) }
    func armDeadlines(at deadline: UInt64?) { deadlineTimer.arm(at: deadline) }
    func acknowledgeDeadlines() { deadlineTimer.acknowledge() }
    func armReplay(at deadline: UInt64?) { replayTimer.arm(at: deadline) }
    func acknowledgeReplay() { replayTimer.acknowledge() }
}
