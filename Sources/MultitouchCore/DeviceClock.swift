/// The time between a device's frames as the device measured it, for the rules that judge motion per
/// time (the touchpad jump rule). Frames can reach the reader late and bunched: after a stall of the
/// machine, frames the sensor scanned 10 ms apart arrive 0.2 ms apart, and motion scaled by their
/// arrival times looks 50 times faster than the finger was.
///
/// - Where the device gives its scan time (`MSC_TIMESTAMP`: hid-multitouch's `HID_DG_SCANTIME` in µs,
///   wrapping at 2^32), the interval between two frames that both carry one is its difference, taken
///   modulo 2^32.
/// - Otherwise (no `MSC_TIMESTAMP`, a frame without one, the first frame after one without, or a value
///   of 0: the kernel restarts the count at 0 after a second without reports, `mt_compute_timestamp`)
///   it is the kernel event time's difference.
///
/// Pure: time comes only from the frames. Touch timestamps stay kernel event times; only motion is
/// judged per device time.
struct DeviceClock: Sendable {
    /// Microseconds since the first frame, counted in the device's intervals (see the type).
    private(set) var now: Int64 = 0
    private var lastKernelTime: Timestamp?
    private var lastScanTime: UInt32?
    private var frameScanTime: UInt32?

    /// The frame being parsed carries `MSC_TIMESTAMP` `value`.
    @inline(__always)
    mutating func noteScanTime(_ value: Int32) { frameScanTime = UInt32(bitPattern: value) }

    /// The frame being parsed is complete at kernel time `kernelTime`: `now` moves on by its interval.
    mutating func advance(to kernelTime: Timestamp) {
        if let scan = frameScanTime, let last = lastScanTime, scan != 0 {
            now += Int64(scan &- last)
        } else if let last = lastKernelTime {
            now += max(0, kernelTime.microseconds - last.microseconds)
        }
        lastKernelTime = kernelTime
        lastScanTime = frameScanTime
        frameScanTime = nil
    }
}
