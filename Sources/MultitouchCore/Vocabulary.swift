// The vocabulary the pipeline speaks (touches, frames, time, points, device classes), defined in the
// TouchVocabulary module that the wire protocol and the clients share; re-exported so that every
// stage that imports MultitouchCore names it without another import.
@_exported import TouchVocabulary
