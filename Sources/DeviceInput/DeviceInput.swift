import CLibevdev
import CLibudev
import MultitouchCore

/// Namespace for live device access (libevdev devices, udev discovery and hotplug).
public enum DeviceInput {}
