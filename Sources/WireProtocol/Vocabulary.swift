// The value types the messages carry (touches, transforms, regions, gesture events) come from
// TouchVocabulary, the one module the protocol shares with the engine and the router; re-exported so
// that a user of the protocol (the Swift client, multitouchctl) names them without another import.
@_exported import TouchVocabulary
