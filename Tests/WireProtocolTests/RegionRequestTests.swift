import Gestures
import Testing
import TouchRouting
import WireProtocol

/// The routing requests that are not in the golden files' per-type samples: `setTransform` and
/// `resetTransform` with a `region` (they share their type's golden file with the device form), and the
/// errors of `recognized`.
@Suite("Region requests")
struct RegionRequestTests {
    static let matrix = AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 10.5, ty: -3)

    @Test(arguments: [
        (
            #"{"type":"setTransform","device":1,"region":"map","matrix":[2,0,0,2,10.5,-3],"id":7}"#,
            ClientRequest(.setRegionTransform(device: 1, region: "map", matrix: matrix), id: 7)
        ),
        (
            #"{"type":"resetTransform","device":1,"region":"map","id":"r"}"#,
            ClientRequest(.setRegionTransform(device: 1, region: "map", matrix: nil), id: "r")
        ),
        (
            #"{"type":"recognized","device":2,"region":"a\"b"}"#,
            ClientRequest(.recognized(device: 2, region: "a\"b"))
        ),
    ])
    func aRegionRequestReadsAndWritesBack(line: String, request: ClientRequest) throws {
        #expect(try ClientRequest(decoding: Array(line.utf8)) == request)
        #expect(request.jsonLine() == line)
    }

    @Test func theKindOfARegionTransformIsItsWireType() {
        #expect(RequestAction.setRegionTransform(device: 1, region: "m", matrix: nil).kind == .resetTransform)
        #expect(RequestAction.setRegionTransform(device: 1, region: "m", matrix: .identity).kind == .setTransform)
        #expect(RequestAction.setTransform(device: 1, matrix: .identity).kind == .setTransform)
    }

    @Test(arguments: [
        #"{"type":"recognized","device":1}"#,
        #"{"type":"recognized","device":1,"region":""}"#,
        #"{"type":"recognized","device":1,"region":7}"#,
        #"{"type":"setTransform","device":1,"region":["m"],"matrix":[1,0,0,1,0,0]}"#,
        #"{"type":"recognized","device":1,"region":"m","extra":true}"#,
    ])
    func aBadRegionRequestIsBadField(line: String) {
        #expect(throws: RequestError.self) { try ClientRequest(decoding: Array(line.utf8)) }
        #expect((try? ClientRequest(decoding: Array(line.utf8))) == nil)
        do {
            _ = try ClientRequest(decoding: Array(line.utf8))
        } catch {
            #expect(error.code == .badField)
        }
    }
}
