import NFCCore
import Synchronization
import Testing

@testable import NFCBridge

/// The discovery claim/turn rules, on a recording sender (no broker, no agent).
@Suite struct DiscoveryPublisherTests {
    /// Records what the publisher sends; a send can be held until the test lets it go.
    final class Sender: Sendable {
        private let sent = Watched<[OutboundMessage]>([])
        private let holdFirst: Bool
        private let released = Watched(false)

        init(holdingTheFirstSend: Bool = false) { holdFirst = holdingTheFirstSend }

        var messages: [OutboundMessage] { sent.value }

        func send(_ message: OutboundMessage) async {
            let count = sent.update { sent -> Int in
                sent.append(message)
                return sent.count
            }
            if holdFirst, count == 1 { await released.wait { $0 } }
        }

        /// Returns once `count` messages were handed over.
        func waitForMessages(_ count: Int) async { await sent.wait { $0.count >= count } }

        func release() { released.update { $0 = true } }
    }

    let documents = HomeAssistantDiscovery(topics: TopicMap(base: "nfc", id: "test"), version: "1.0")
    let reader = ReaderInfo(connstring: "pn532_uart:/dev/ttyS0", name: "PN532", firmware: "PN532 v1.6")

    func makePublisher(_ sender: Sender) -> DiscoveryPublisher {
        DiscoveryPublisher(documents: documents) { await sender.send($0) }
    }

    @Test func nothingGoesOutBeforeTheFirstConnectUnlessForced() async {
        let sender = Sender()
        let publisher = makePublisher(sender)
        publisher.readerChanged(to: reader)
        await publisher.publish(force: false)
        #expect(sender.messages.isEmpty)
        await publisher.publish(force: true)
        #expect(sender.messages.count == documents.documents.count)
    }

    @Test func aConnectionCarriesTheDocumentsOncePerReader() async {
        let sender = Sender()
        let publisher = makePublisher(sender)
        publisher.connected(1)
        await publisher.publish(force: false)
        await publisher.publish(force: false)
        let oneSet = documents.documents.count
        #expect(sender.messages.count == oneSet)
        #expect(sender.messages.allSatisfy { $0.retain && $0.qos == .atLeastOnce })

        publisher.readerChanged(to: reader)
        await publisher.publish(force: false)
        #expect(sender.messages.count == 2 * oneSet)
        #expect(sender.messages.last == documents.messages(reader: reader).last)

        publisher.connected(2)
        await publisher.publish(force: false)
        await publisher.publish(force: true)
        #expect(sender.messages.count == 4 * oneSet)
    }

    @Test func claimsAreNumberedInOrderAndSkippedWhenNothingChanged() {
        let publisher = makePublisher(Sender())
        #expect(publisher.claim(force: false) == nil)
        publisher.connected(1)
        #expect(publisher.claim(force: false) == .init(number: 0, reader: nil))
        #expect(publisher.claim(force: false) == nil)
        publisher.readerChanged(to: reader)
        #expect(publisher.claim(force: false) == .init(number: 1, reader: reader))
        #expect(publisher.claim(force: true) == .init(number: 2, reader: reader))
    }

    @Test func anOvertakenClaimStopsAndTheNewerOneSendsEverythingAfterIt() async {
        let sender = Sender(holdingTheFirstSend: true)
        let publisher = makePublisher(sender)
        publisher.connected(1)
        // The connect's claim (reader unknown) is held in its first send…
        let older = Task { await publisher.publish(force: false) }
        await sender.waitForMessages(1)
        // … when the reader's first open claims the next turn.
        publisher.readerChanged(to: reader)
        let newer = publisher.claim(force: false)
        #expect(newer == .init(number: 1, reader: reader))
        let newerSend = Task { if let newer { await publisher.send(newer) } }
        sender.release()
        await older.value
        await newerSend.value

        let withReader = documents.messages(reader: reader)
        let sent = sender.messages
        // One document of the older claim, then the newer claim's full set, never interleaved.
        #expect(sent.count == 1 + withReader.count)
        #expect(sent.first == documents.messages(reader: nil).first)
        #expect(Array(sent.dropFirst()) == withReader)
    }

    @Test func aReaderChangeIsRepublishedFromItsOwnTask() async {
        let sender = Sender()
        let publisher = makePublisher(sender)
        publisher.connected(1)
        await publisher.publish(force: false)
        let republishing = Task { await publisher.runRepublishing() }
        publisher.readerChanged(to: reader)
        await sender.waitForMessages(2 * documents.documents.count)
        republishing.cancel()
        await republishing.value
        #expect(sender.messages.suffix(documents.documents.count) == documents.messages(reader: reader)[...])
    }
}
