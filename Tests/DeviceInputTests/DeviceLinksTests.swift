import Glibc
import Testing

@testable import DeviceInput

@Suite struct DeviceLinksTests {
    @Test func findsTheLinksThatResolveToANode() throws {
        let root = try temporaryDirectory()
        let node = root + "/event4"
        let other = root + "/event5"
        for path in [node, other] {
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            try #require(fd >= 0)
            close(fd)
        }
        #expect(mkdir(root + "/by-id", 0o755) == 0)
        #expect(mkdir(root + "/by-path", 0o755) == 0)
        #expect(symlink("../event4", root + "/by-id/usb-Vendor_Panel-event-if00") == 0)
        #expect(symlink("../event5", root + "/by-id/usb-Other-event-kbd") == 0)
        #expect(symlink(node, root + "/by-path/pci-0000:00:14.0-usb-0:1:1.0-event") == 0)
        let links = DeviceLinks.links(to: node, directories: [root + "/by-id", root + "/by-path"])
        #expect(
            links == [
                root + "/by-id/usb-Vendor_Panel-event-if00", root + "/by-path/pci-0000:00:14.0-usb-0:1:1.0-event",
            ])
        #expect(DeviceLinks.links(to: root + "/missing", directories: [root + "/by-id"]).isEmpty)
    }
}
