import NFCCore

/// How people write a DESFire application ID in the configuration (`access.credential`) and the keys
/// file (`application`): as NXP's documents write it, the 3-byte number most significant byte first
/// (AID 123456h is `123456`). The card sends and takes it least significant byte first (`56 34 12`:
/// MIFARE DESFire EV1 datasheet MF3ICD(Q)81 §9.2, SelectApplication 5Ah and GetApplicationIDs 6Ah),
/// which is the order NFCCore keys applications by (and the dump lists them in). A DESFire Light /
/// NTAG 424 DNA DF name (5 to 16 bytes) is a byte string, the same in both.
package enum DESFireAIDNotation {
    /// The card order (LSB first) of an application as written; a DF name as is.
    package static func cardOrder(written: [UInt8]) -> [UInt8] {
        written.count == 3 ? Array(written.reversed()) : written
    }

    /// The written form (hex, most significant byte first) of an application NFCCore keys in card order.
    package static func written(cardOrder: [UInt8]) -> String {
        (cardOrder.count == 3 ? Array(cardOrder.reversed()) : cardOrder).hexString
    }
}
