/// The Type 2 name of the NFC Forum TLV codec (``NFCForumTLV``), which serves the Type 2 mapping and the
/// MIFARE Classic NDEF mapping alike. Kept so callers that name it (exports, imports, the simulator's
/// factory images, tests) need no change.
public typealias Type2TLV = NFCForumTLV
