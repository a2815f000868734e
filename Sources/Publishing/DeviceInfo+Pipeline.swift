import MultitouchCore
import TouchPipeline
import WireProtocol

extension DeviceInfo {
    /// The wire's device object of a device a pipeline serves: its description, its size and units as
    /// its coordinate mapper publishes them, and the class its pipeline chose (`PipelineDevice.kind`).
    /// Here, at the publishing edge, because the protocol knows no device description (WireProtocol
    /// speaks TouchVocabulary only: a client links none of the pipeline).
    public init(_ device: PipelineDevice) {
        let description = device.description
        let mapper = device.mapper
        let size = mapper.sizeMillimeters
        let published = mapper.output.map { ($0.width, $0.height) } ?? (size.width, size.height)
        self.init(
            id: device.id, name: description.name, source: device.source, deviceClass: device.kind.deviceClass,
            multitouchProtocol: description.multitouchProtocol, slots: description.slotCount,
            isSemiMT: device.kind.isSemiMT, units: mapper.units, width: published.0, height: published.1,
            widthMillimeters: size.width, heightMillimeters: size.height, sizeSource: mapper.scaleSource)
    }
}
