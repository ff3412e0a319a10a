import CMosquitto
import FoundationEssentials
import Glibc
import POSIXThreads
import Synchronization

/// One libmosquitto client handle and the thread that drives it. `MQTTClient` is the public face;
/// this object is what the network thread and the C callbacks hold on to.
///
/// Threading (see docs/mqtt-client.md):
/// - The network thread, started by `start`/`connect`, owns the connection cycle: it calls
///   `mosquitto_connect_bind_async` and waits for the TCP handshake with `poll` (``ConnectWait``:
///   bounded by `connectTimeout`, woken by a stop), then `mosquitto_loop` until the connection ends
///   (the CONNACK bounded by `connectTimeout` too), then waits the back-off and tries again. We do
///   not use `mosquitto_loop_start`: its thread gives up after a failed first connect and after a
///   refused v5 CONNACK (docs: peers-mqtt.md §5.3).
/// - Every libmosquitto callback runs on that thread. Callbacks only copy data, update state under
///   `lock` and resume continuations / yield to `AsyncStream`s; they never wait for Swift code.
/// - Other threads call `mosquitto_publish_v5`, `_subscribe_v5`, `_unsubscribe_v5`, `_disconnect_v5`
///   (thread-safe once `mosquitto_threaded_set` is on) while holding `lock`, so a PUBACK/SUBACK cannot
///   be handled before its waiter is registered. That is deadlock-free because libmosquitto 2.0.11
///   holds only `callback_mutex` (and, for a QoS 0 publish, `current_out_packet_mutex`) while it runs
///   our callbacks, and those calls never take either of them.
/// - The log callback can run while libmosquitto holds its message-queue mutex, so it must not take
///   `lock`: it writes to its own `lastError` mutex.
final class MosquittoSession: @unchecked Sendable {
    let configuration: MQTTConfiguration
    let address: MQTTBrokerAddress
    /// The configured protocol is MQTT 5 (a node may still speak 3.1.1: ``speaksV5``).
    let isV5: Bool
    let messages: AsyncStream<MQTTMessage>
    let events: AsyncStream<MQTTConnectionEvent>

    private let handle: OpaquePointer
    /// libmosquitto's functions (the callbacks reach them through the session too).
    let lib: LibMosquitto
    private let connectProperties: OpaquePointer?
    private let keepAliveSeconds: Int32
    /// Raised by a stop: wakes the wait for a TCP handshake (``ConnectWait``).
    private let connectWait = ConnectWait()
    private let backoff: Backoff
    /// Told why connecting fails, once per change of reason (see `MQTTConnectionFailure`).
    private let failureHandler: (@Sendable (MQTTConnectionFailure) -> Void)?
    private let messageContinuation: AsyncStream<MQTTMessage>.Continuation
    private let eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
    private let lastError = Mutex<String?>(nil)
    private let dropped = Atomic<Int>(0)
    private let oversized = Atomic<Int>(0)
    /// Failed connection attempts by `MQTTConnectionFailure.reasonKey` (every attempt, not only the reported ones).
    private let failureCounts = Mutex<[String: Int]>([:])

    // Everything below is guarded by `lock`.
    private let lock = ConditionLock()
    private var runState = RunState.idle
    private var stopRequested = false
    /// A `start()`/`connect()` that arrived while the current run was ending: its fail-fast mode.
    private var pendingRelaunch: Bool?
    private var linkUp = false
    private var connected = false
    private var sessionPresent = false
    private var connackReason: Int?
    /// The protocol of the attempt under way, or of the connection: MQTT 5 unless configured 3.1.1 or
    /// the node fell back (``BrokerNodes/v311Nodes``). Configured `.v5` with this false on a node not
    /// yet known as 3.1.1: the attempt is the 3.1.1 retry of a node that refused MQTT 5.
    private var attemptIsV5: Bool
    private var subscriptions = SubscriptionTable()
    /// The broker nodes, the one in use and the failovers so far.
    private var nodes: BrokerNodes
    /// Takeovers of the session by another client with our id (inferred).
    private var takeover = TakeoverWatch()
    /// When the current connection's CONNACK came.
    private var connectedAt: ContinuousClock.Instant?
    /// `dropConnection()` ended the current connection (a recycle: not the broker's doing).
    private var dropRequested = false
    /// The stop lets the broker publish the will (`close(publishingWill: true)`).
    private var willOnStop = false
    private var pendingRestores: Set<Int32> = []
    private var publishWaiters: [Int32: CheckedContinuation<Void, any Error>] = [:]
    private var subscribeWaiters: [Int32: (filter: String, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var unsubscribeWaiters: [Int32: CheckedContinuation<Void, any Error>] = [:]
    private var connectWaiters: [ObjectIdentifier: (box: RequestBox, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Continuations answered under `lock`, resumed once it is released (``answer(_:throwing:)``).
    private var unresumed: [() -> Void] = []

    private enum RunState {
        case idle
        /// `failFast`: a `connect()` is waiting for the first outcome and the run ends if it fails.
        case running(failFast: Bool)
        case closed
    }

    /// A waiter's identity and cancellation flag (guarded by the session lock).
    final class RequestBox: @unchecked Sendable {
        var mid: Int32?
        var cancelled = false
    }

    init(
        configuration: MQTTConfiguration, onConnectionFailure: (@Sendable (MQTTConnectionFailure) -> Void)? = nil
    ) throws(MQTTClientError) {
        let lib = try MosquittoLibrary.initialise()
        let nodes = try BrokerNodes(configuration)
        let address = nodes.current
        let keepAlive = configuration.keepAlive.components.seconds
        guard keepAlive == 0 || (5...65535).contains(keepAlive) else {
            throw .invalidConfiguration("keepAlive must be 0 or 5…65535 seconds")
        }
        guard configuration.clientID != nil || configuration.cleanStart else {
            throw .invalidConfiguration("a session that survives the connection (cleanStart false) needs a clientID")
        }
        if let id = configuration.clientID, id.isEmpty || id.utf8.count > 65535 || id.utf8.contains(0) {
            throw .invalidConfiguration("clientID must be 1…65535 bytes of UTF-8 without U+0000")
        }
        guard configuration.connectTimeout >= .milliseconds(100) else {
            throw .invalidConfiguration("connectTimeout must be at least 100 ms")
        }
        guard configuration.messageBufferSize > 0 else {
            throw .invalidConfiguration("messageBufferSize must be at least 1")
        }
        guard configuration.password == nil || configuration.username != nil else {
            throw .invalidConfiguration("a password needs a username")
        }
        guard let handle = lib.mosquitto_new(configuration.clientID, configuration.cleanStart, nil) else {
            throw errno == ENOMEM ? .outOfMemory : .invalidConfiguration("mosquitto_new refused the client id")
        }
        let connectProperties: OpaquePointer?
        do {
            connectProperties = try Self.configure(handle, configuration, address, lib)
        } catch {
            lib.mosquitto_destroy(handle)
            throw error
        }
        self.lib = lib
        self.configuration = configuration
        self.address = address
        self.nodes = nodes
        self.isV5 = configuration.protocolVersion.isV5
        self.attemptIsV5 = configuration.protocolVersion.isV5
        self.handle = handle
        self.connectProperties = connectProperties
        self.keepAliveSeconds = Int32(keepAlive)
        self.backoff = Backoff(policy: configuration.reconnect)
        self.failureHandler = onConnectionFailure
        (messages, messageContinuation) = AsyncStream.makeStream(
            of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(configuration.messageBufferSize))
        (events, eventContinuation) = AsyncStream.makeStream(
            of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(256))
        lib.mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        MosquittoCallbacks.install(on: handle, lib)
    }

    deinit {
        // Reached only once the network thread has ended (it holds a strong reference while running).
        lib.mosquitto_destroy(handle)
        var properties = connectProperties
        lib.mosquitto_property_free_all(&properties)
        messageContinuation.finish()
        eventContinuation.finish()
    }

    // MARK: - Set-up

    /// Applies protocol version, credentials, will and TLS to a fresh handle; returns the CONNECT
    /// property list (owned by the session).
    private static func configure(_ handle: OpaquePointer, _ configuration: MQTTConfiguration,
                                  _ address: MQTTBrokerAddress, _ lib: LibMosquitto) throws(MQTTClientError) -> OpaquePointer? {
        func check(_ rc: Int32, _ what: String) throws(MQTTClientError) {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw rc == MOSQ_ERR_INVAL.rawValue
                    ? .invalidConfiguration(what) : MQTTClientError(mosquittoCode: rc, phase: .request)
            }
        }
        let isV5 = configuration.protocolVersion.isV5
        try check(lib.mosquitto_threaded_set(handle, true), "threaded mode")
        try check(lib.mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, isV5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311),
                  "protocol version")
        if configuration.username != nil {
            try check(lib.mosquitto_username_pw_set(handle, configuration.username, configuration.password),
                      "username/password")
        }
        if let will = configuration.will {
            try MQTTTopic.validateName(will.topic)
            guard isV5 || will.properties.isEmpty else { throw .notSupported("will properties need MQTT v5") }
            var list = try MosquittoPropertyList.make(will.properties, lib)
            let rc = will.payload.withUnsafeBytes {
                lib.mosquitto_will_set_v5(handle, will.topic, Int32($0.count), $0.baseAddress, Int32(will.qos.rawValue),
                                      will.retain, list)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue { lib.mosquitto_property_free_all(&list) }  // on success libmosquitto owns it
            try check(rc, "will message")
        }
        var tls: MQTTTLSConfiguration?
        switch configuration.tls {
        case .enabled(let settings): tls = settings
        case .disabled: tls = address.usesTLS ? MQTTTLSConfiguration() : nil
        }
        if let tls { try configureTLS(handle, tls, lib) }
        if case .v5(let properties) = configuration.protocolVersion {
            return try MosquittoPropertyList.make(properties, lib)
        }
        return nil
    }

    private static func configureTLS(_ handle: OpaquePointer, _ tls: MQTTTLSConfiguration, _ lib: LibMosquitto) throws(MQTTClientError) {
        for file in [tls.caFile, tls.certificateFile, tls.keyFile].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: file) {
            throw .tlsError("cannot read \(file)")
        }
        guard (tls.certificateFile == nil) == (tls.keyFile == nil) else {
            throw .invalidConfiguration("a client certificate needs its key file, and a key file its certificate")
        }
        var caDirectory = tls.caDirectory
        if tls.caFile == nil && tls.caDirectory == nil {
            // No CA given: trust the operating system's store, and name Debian's hashed CA directory as
            // well. mosquitto_tls_set insists on a CA file or directory for a client certificate, and
            // libmosquitto 2.0.11 refuses every RECONNECT of a client that has only USE_OS_CERTS
            // ("MOSQ_OPT_SSL_CTX_WITH_DEFAULTS used without specifying cafile, capath or psk"): the
            // first connection worked, the one after a broker restart never came back.
            _ = lib.mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            caDirectory = "/etc/ssl/certs"
        }
        if tls.caFile != nil || caDirectory != nil {
            let rc = lib.mosquitto_tls_set(handle, tls.caFile, caDirectory, tls.certificateFile, tls.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw .tlsError("libmosquitto refused the CA/certificate/key files (\(MQTTClientError.libraryText(rc)))")
            }
        }
        // cert_reqs 1 = SSL_VERIFY_PEER: the broker certificate must chain to a trusted CA; 0 =
        // SSL_VERIFY_NONE: not verified at all (libmosquitto then installs no verify callback, so its
        // hostname check does not run either).
        let certificateRequirement: Int32 = tls.verifyCertificate ? 1 : 0
        guard lib.mosquitto_tls_opts_set(handle, certificateRequirement, tls.minimumVersion, nil) == MOSQ_ERR_SUCCESS.rawValue
        else {
            throw .invalidConfiguration("unknown TLS version '\(tls.minimumVersion)' (use tlsv1.2 or tlsv1.3)")
        }
        _ = lib.mosquitto_tls_insecure_set(handle, !tls.verifyHostname || !tls.verifyCertificate)
    }

    // MARK: - Public operations (called from any thread)

    var isConnected: Bool { locked { connected } }

    var droppedMessageCount: Int { dropped.load(ordering: .relaxed) }

    var connectionFailureCounts: [String: Int] { failureCounts.withLock { $0 } }

    var connectedURL: String? { locked { nodes.connectedURL } }

    var failovers: Int { locked { nodes.failovers } }

    var takeovers: Int { locked { takeover.takeovers } }

    var speaksV5: Bool { locked { attemptIsV5 } }

    /// Starts the network thread in "retry forever" mode (no-op when already running).
    func start() throws(MQTTClientError) {
        try locked { () throws(MQTTClientError) in
            switch runState {
            case .closed: throw .notConnected
            case .running where !stopWaiters.isEmpty: throw .notConnected  // disconnect() under way
            case .running where stopRequested: pendingRelaunch = false   // the ending run hands over
            case .running: runState = .running(failFast: false)
            case .idle: launch(failFast: false)
            }
        }
    }

    /// Waits until connected; starts the thread in "fail on the first failure" mode when idle.
    func connect() async throws {
        let box = RequestBox()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                locked {
                    if box.cancelled { return answer(continuation, throwing: CancellationError()) }
                    switch runState {
                    case .closed: return answer(continuation, throwing: MQTTClientError.notConnected)
                    case .running where !stopWaiters.isEmpty:
                        return answer(continuation, throwing: MQTTClientError.notConnected)
                    case .running where stopRequested: pendingRelaunch = pendingRelaunch ?? true
                    case .running where connected: return answer(continuation)
                    case .running: break
                    case .idle: launch(failFast: true)
                    }
                    connectWaiters[ObjectIdentifier(box)] = (box, continuation)
                }
            }
        } onCancel: {
            locked {
                box.cancelled = true
                if let waiter = connectWaiters.removeValue(forKey: ObjectIdentifier(box)) {
                    answer(waiter.continuation, throwing: CancellationError())
                    // A fail-fast run exists only for this connect(): stop it.
                    if case .running(failFast: true) = runState, connectWaiters.isEmpty { requestStop() }
                }
            }
        }
    }

    /// Stops for good: DISCONNECT (no will; with `publishingWill`, ended so that the broker publishes
    /// it: ``endLinkForStop()``), thread ended, streams finished.
    func close(publishingWill: Bool = false) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            locked {
                willOnStop = willOnStop || publishingWill
                switch runState {
                case .idle, .closed:
                    runState = .closed
                    failPendingPublishes()  // QoS ≥ 1 publishes made before any start
                    answer(continuation)
                case .running:
                    stopWaiters.append(continuation)
                    requestStop()
                }
            }
        }
        messageContinuation.finish()
        eventContinuation.finish()
    }

    /// Stop without waiting (used by `MQTTClient.deinit`).
    func closeInBackground() {
        locked {
            if case .running = runState { requestStop() }
        }
    }

    /// Shuts the socket down under the network thread (lock held so the link cannot change under
    /// us): its `mosquitto_loop` sees the connection lost and the run loop reconnects. Only a link
    /// that is up (CONNACK received): an attempt still waiting for its CONNACK is left to finish, as
    /// cutting it would look like a broker closing an MQTT 5 CONNECT (``MQTT5Refusal/closedBeforeConnack``).
    func dropConnection() {
        locked {
            let fd = lib.mosquitto_socket(handle)
            guard fd >= 0, linkUp, case .running = runState, !stopRequested else { return }
            dropRequested = true
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    func publish(to topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                 properties: MQTTPublishProperties) async throws {
        try MQTTTopic.validateName(topic)
        guard isV5 || properties.isEmpty else { throw MQTTClientError.notSupported("publish properties need MQTT v5") }
        // A node that fell back to MQTT 3.1.1 gets the message without its properties (3.1.1 has none;
        // a message queued meanwhile keeps them, and libmosquitto leaves them out on a 3.1.1 link).
        let nodeIsV5 = speaksV5
        let properties = nodeIsV5 ? properties : MQTTPublishProperties()
        // MQTT's Remaining Length tops out at 268,435,455 bytes (MQTT 5.0 §1.5.5).
        guard payload.count <= 268_435_455 else { throw MQTTClientError.payloadTooLarge(size: payload.count) }
        if let limit = configuration.maximumOutgoingPacket,
           MQTTPacketSize.publish(topic: topic, payloadCount: payload.count, qos: qos, properties: properties, isV5: nodeIsV5) > limit {
            throw MQTTClientError.payloadTooLarge(size: payload.count)
        }
        if qos == .atMostOnce {
            try locked { () throws(MQTTClientError) in
                guard connected else { throw .notConnected }
                let rc = try send(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties).rc
                guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw error(rc, size: payload.count) }
            }
            return
        }
        try await awaitAcknowledgement { continuation in
            do {
                let (rc, mid) = try send(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties)
                // MOSQ_ERR_NO_CONN on QoS ≥ 1 still leaves the message in libmosquitto's in-memory
                // queue, sent after the next CONNACK (peers-mqtt.md §5.3): wait for that PUBACK.
                guard rc == MOSQ_ERR_SUCCESS.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue else {
                    answer(continuation, throwing: error(rc, size: payload.count))
                    return nil
                }
                publishWaiters[mid] = continuation
                return mid
            } catch {
                answer(continuation, throwing: error)
                return nil
            }
        } forget: { publishWaiters.removeValue(forKey: $0) }
    }

    /// Cancelling the task stops the wait for the SUBACK (`CancellationError`); the subscription
    /// stays remembered (restored on the next CONNACK).
    func subscribe(to filter: String, qos: MQTTQoS, options: MQTTSubscriptionOptions) async throws {
        try MQTTTopic.validateFilter(filter)
        try await awaitAcknowledgement { continuation in
            subscriptions.set(filter, Subscription(qos: qos, options: options))
            guard linkUp else {  // sent with the next CONNACK
                answer(continuation)
                return nil
            }
            var mid: Int32 = 0
            let rc = lib.mosquitto_subscribe_v5(handle, &mid, filter, Int32(qos.rawValue),
                                            attemptIsV5 ? options.mosquittoBits : 0, nil)
            switch rc {
            case MOSQ_ERR_SUCCESS.rawValue:
                subscribeWaiters[mid] = (filter, continuation)
                return mid
            case MOSQ_ERR_NO_CONN.rawValue: answer(continuation)
            default:
                subscriptions.remove(filter)
                answer(continuation, throwing: MQTTClientError(mosquittoCode: rc, phase: .request))
            }
            return nil
        } forget: { subscribeWaiters.removeValue(forKey: $0)?.continuation }
    }

    /// Waits for the broker's answer to a request. `register` runs under the lock with the
    /// continuation: it answers it at once (returning nil) or files it under the packet id it
    /// returns. Cancelling the task takes a filed continuation back with `forget` (under the lock)
    /// and answers it `CancellationError`; a task cancelled before `register` runs gets that at once,
    /// a closed session `not_connected`.
    private func awaitAcknowledgement(
        register: (CheckedContinuation<Void, any Error>) -> Int32?,
        forget: @Sendable (Int32) -> CheckedContinuation<Void, any Error>?
    ) async throws {
        let box = RequestBox()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                locked {
                    if box.cancelled { return answer(continuation, throwing: CancellationError()) }
                    if case .closed = runState { return answer(continuation, throwing: MQTTClientError.notConnected) }
                    box.mid = register(continuation)
                }
            }
        } onCancel: {
            locked {
                box.cancelled = true
                if let mid = box.mid, let waiter = forget(mid) { answer(waiter, throwing: CancellationError()) }
            }
        }
    }

    func unsubscribe(from filter: String) async throws {
        try MQTTTopic.validateFilter(filter)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            locked {
                subscriptions.remove(filter)
                guard linkUp else { return answer(continuation) }
                var mid: Int32 = 0
                let rc = lib.mosquitto_unsubscribe_v5(handle, &mid, filter, nil)
                switch rc {
                case MOSQ_ERR_SUCCESS.rawValue: unsubscribeWaiters[mid] = continuation
                case MOSQ_ERR_NO_CONN.rawValue: answer(continuation)
                default: answer(continuation, throwing: MQTTClientError(mosquittoCode: rc, phase: .request))
                }
            }
        }
    }

    // MARK: - Helpers (lock held)

    /// Runs `body` with `lock` held, then resumes the continuations it answered (``answer(_:throwing:)``)
    /// once the lock is released.
    private func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        let result = Result<R, E> { () throws(E) -> R in try body() }
        let answers = unresumed
        unresumed.removeAll()
        lock.unlock()
        for resume in answers { resume() }
        return try result.get()
    }

    /// Answers a request (lock held): resumed by ``locked(_:)`` after the lock is released.
    ///
    /// Never resume a continuation with `lock` held. Resuming a suspended task takes the Swift
    /// runtime's lock on that task's status, which a `Task.cancel()` on another thread holds while the
    /// task's cancellation handler runs — and those handlers (`connect`, `awaitAcknowledgement`) wait
    /// for `lock`: the network thread answering a SUBACK and a cancel of that subscribe waited for
    /// each other for ever (the agent hung on a SIGTERM right after it connected).
    private func answer(_ continuation: CheckedContinuation<Void, any Error>, throwing error: (any Error)? = nil) {
        unresumed.append {
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }

    /// Answers a ``close(publishingWill:)`` (lock held; see ``answer(_:throwing:)``).
    private func answer(_ continuation: CheckedContinuation<Void, Never>) {
        unresumed.append { continuation.resume() }
    }

    private func launch(failFast: Bool) {
        runState = .running(failFast: failFast)
        stopRequested = false
        startThread(name: "mqtt-network") { [self] in runLoop() }
    }

    private func requestStop() {
        stopRequested = true
        // Wake the thread: a DISCONNECT queued from here interrupts its select(); the condition
        // interrupts a back-off wait. If the link is not up, the thread's own check sends nothing.
        if linkUp { endLinkForStop() }
        lock.broadcast()
        connectWait.raise()
    }

    /// Ends the link for a stop (lock held): DISCONNECT reason 0, so the broker discards the will;
    /// with ``willOnStop`` reason 0x04 "Disconnect with Will Message" (MQTT 5.0 §3.14.2.1), or under
    /// MQTT 3.1.1, which has no such reason, the socket shut without DISCONNECT. Either wakes the
    /// network thread's `select()`.
    private func endLinkForStop() {
        if willOnStop, !attemptIsV5 {
            let fd = lib.mosquitto_socket(handle)
            if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        } else {
            _ = lib.mosquitto_disconnect_v5(handle, willOnStop ? 0x04 : 0, nil)
        }
    }

    private func send(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool,
                      properties: MQTTPublishProperties) throws(MQTTClientError) -> (rc: Int32, mid: Int32) {
        var mid: Int32 = 0
        let rc = try MosquittoPropertyList.with(properties, lib) { list in
            payload.withUnsafeBytes {
                lib.mosquitto_publish_v5(handle, &mid, topic, Int32($0.count), $0.baseAddress, Int32(qos.rawValue), retain, list)
            }
        }
        return (rc, mid)
    }

    private func error(_ rc: Int32, size: Int) -> MQTTClientError {
        let mapped = MQTTClientError(mosquittoCode: rc, phase: .request)
        if case .payloadTooLarge = mapped { return .payloadTooLarge(size: size) }
        return mapped
    }

    private func emit(_ event: MQTTConnectionEvent) {
        eventContinuation.yield(event)
    }

    /// Connected and every remembered subscription acknowledged (lock held).
    private func markConnected() {
        connected = true
        if case .running = runState { runState = .running(failFast: false) }
        emit(.connected(sessionPresent: sessionPresent))
        let waiters = connectWaiters
        connectWaiters.removeAll()
        for waiter in waiters.values { answer(waiter.continuation) }
    }

    // MARK: - The network thread

    private enum AttemptOutcome {
        case stopped
        /// `refusal`: an MQTT 5 CONNECT refused the way a broker that speaks only 3.1.1 may refuse it.
        case failed(MQTTClientError, refusal: MQTT5Refusal? = nil)
        case lost(MQTTClientError)
    }

    /// How a node refused an MQTT 5 CONNECT.
    private enum MQTT5Refusal {
        /// CONNACK 0x84 Unsupported Protocol Version (MQTT 5.0 §3.2.2.2; libmosquitto reports a 3.1.1
        /// CONNACK "unacceptable protocol version", return code 1, MQTT 3.1.1 §3.2.2.3, as 0x84 too):
        /// the node speaks only 3.1.1.
        case unsupportedVersion
        /// The connection closed after the CONNECT without any CONNACK: a broker that speaks only
        /// 3.1.1 (RabbitMQ 3.10), or an MQTT 5 broker going down or restarting, which must keep MQTT 5:
        /// the node is tried once more with MQTT 5 after the reconnect policy's initial delay, and only
        /// a second close in a row sends the 3.1.1 retry.
        case closedBeforeConnack
    }

    /// The next attempt after a node refused MQTT 5: the same node again, without the back-off.
    private enum Retry {
        /// No refusal: the next attempt follows the back-off (on the next node).
        case none
        /// MQTT 5 once more, after the reconnect policy's initial delay: the node closed one MQTT 5
        /// CONNECT without a CONNACK.
        case v5Again
        /// MQTT 3.1.1: the node refused MQTT 5.
        case v311
    }

    private func runLoop() {
        var attempt = 0
        // The failure last reported to `failureHandler`; nil after a success.
        var reported: MQTTClientError?
        // The next attempt: the same node again after a refusal of MQTT 5, or the next one.
        var retry = Retry.none
        loop: while true {
            if locked({ stopRequested }) { break }
            var failure: MQTTClientError?
            var verdict = TakeoverWatch.Verdict.ordinary
            let node = locked { nodes.current }
            let outcome = connectOnce(asV311: retry == .v311)
            let previous = retry
            retry = .none
            if configuration.fallsBackToV311, case .failed(_, let refusal?) = outcome {
                // The same node again, not reported as a failure unless the 3.1.1 retry fails too; the
                // node is remembered as 3.1.1 once that connects (handleConnack).
                switch refusal {
                case .unsupportedVersion:
                    retry = .v311
                case .closedBeforeConnack:
                    // The second close in a row on the node: 3.1.1; the first: MQTT 5 once more.
                    retry = previous == .v5Again ? .v311 : .v5Again
                }
                if retry == .v5Again, !sleep(backoff.jittered(configuration.reconnect.initialDelay)) { break loop }
                continue loop
            }
            switch outcome {
            case .stopped:
                break loop
            case .failed(let error, _):
                failure = error
                failureCounts.withLock { $0[MQTTConnectionFailure.reasonKey(for: error), default: 0] += 1 }
                emit(.connectionFailed(error))
                let giveUp = locked { () -> Bool in
                    guard case .running(failFast: true) = runState else { return false }
                    stopRequested = true  // a start()/connect() from now on relaunches (pendingRelaunch)
                    let waiters = connectWaiters
                    connectWaiters.removeAll()
                    for waiter in waiters.values { answer(waiter.continuation, throwing: error) }
                    return true
                }
                if giveUp { break loop }
            case .lost(let error):
                emit(.disconnected(error))
                attempt = 0
                reported = nil
                verdict = locked {
                    let lasted = connectedAt.map { ContinuousClock.now - $0 } ?? .zero
                    return takeover.connectionEnded(lasted: lasted, closedByBroker: !dropRequested)
                }
            }
            // The next attempt goes to the next node (a cluster's other node when this one failed).
            let (nextNode, takeoverDelay) = locked { () -> (MQTTBrokerAddress, Duration?) in
                nodes.advance()
                return (nodes.current, takeover.delay)
            }
            attempt += 1
            var delay = backoff.delay(attempt: attempt)
            switch verdict {
            case .ordinary: break
            case .detected(let takeovers):
                delay = backoff.jittered(takeoverDelay ?? TakeoverWatch.initialDelay)
                emit(.duplicateClientID(takeovers: takeovers, retryIn: delay))
            case .again:
                delay = backoff.jittered(takeoverDelay ?? TakeoverWatch.initialDelay)
            }
            if locked({ stopRequested }) { break }
            if let failure, failure != reported, let failureHandler {
                reported = failure
                failureHandler(MQTTConnectionFailure(
                    broker: "\(node.host):\(node.port)", nextBroker: "\(nextNode.host):\(nextNode.port)", error: failure, attempt: attempt, retryIn: delay,
                    maximumDelay: configuration.reconnect.maximumDelay))
            }
            emit(.reconnecting(attempt: attempt, delay: delay))
            if !sleep(delay) { break }
        }
        finishRun()
    }

    /// Waits `delay` unless a stop is requested first; returns `false` on stop.
    private func sleep(_ delay: Duration) -> Bool {
        let deadline = ConditionLock.deadline(after: delay)
        return locked {
            while !stopRequested {
                if !lock.wait(until: deadline) { return !stopRequested }
            }
            return false
        }
    }

    /// One connection: TCP (+TLS) connect, CONNECT, then the packet loop until the link ends.
    /// `asV311`: the retry of a node that refused MQTT 5 (``MQTT5Refusal``).
    private func connectOnce(asV311: Bool) -> AttemptOutcome {
        let prepared = locked { () -> (address: MQTTBrokerAddress, v5: Bool)? in
            // Cleared under the lock: a stop from here on raises it again.
            connectWait.reset()
            if stopRequested { return nil }
            connackReason = nil
            linkUp = false
            connectedAt = nil
            dropRequested = false
            // The protocol of this attempt, set on the handle while no link is up (under the lock, so
            // no publish or subscribe reads it half-way).
            attemptIsV5 = isV5 && !asV311 && !nodes.currentSpeaksOnlyV311
            _ = lib.mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, attemptIsV5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311)
            return (nodes.current, attemptIsV5)
        }
        guard let (address, v5) = prepared else { return .stopped }
        lastError.withLock { $0 = nil }
        // The CONNECT properties: libmosquitto 2.0.11 keeps those of its last connect_bind_v5 call
        // (nil clears them, as a 3.1.1 attempt needs) and sends them with every later CONNECT; port
        // -1 makes that call stop (MOSQ_ERR_INVAL) before any connecting, and the async connect has
        // no properties argument of its own.
        _ = lib.mosquitto_connect_bind_v5(handle, address.host, -1, keepAliveSeconds, nil, v5 ? connectProperties : nil)
        // The name lookup still blocks here; the TCP handshake is left under way (non-blocking socket).
        var rc = lib.mosquitto_connect_bind_async(handle, address.host, Int32(address.port), keepAliveSeconds, nil)
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            let systemError = errno
            if locked({ stopRequested }) { return .stopped }
            return .failed(MQTTClientError(mosquittoCode: rc, phase: .connecting, errno: systemError,
                                           detail: lastError.withLock { $0 }))
        }
        let timeout = configuration.connectTimeout
        let socket = lib.mosquitto_socket(handle)
        switch connectWait.waitForConnection(socket: socket, until: .now + timeout, isStopped: { locked { stopRequested } }) {
        case .connected: break
        case .stopped:
            ConnectWait.abandon(socket: socket)
            return .stopped
        case .timedOut:
            ConnectWait.abandon(socket: socket)
            return .failed(.brokerUnreachable("no TCP connection within \(MQTTConnectionFailure.seconds(timeout)) s (timed out)"))
        case .failed(let systemError):
            ConnectWait.abandon(socket: socket)
            return .failed(MQTTClientError(mosquittoCode: MOSQ_ERR_ERRNO.rawValue, phase: .connecting, errno: systemError))
        }
        // TCP is up: the TLS handshake, CONNECT and CONNACK happen inside mosquitto_loop, bounded too.
        let connackDeadline = ContinuousClock.now + timeout
        while true {
            let (stopping, answered) = locked { (stopRequested, connackReason != nil) }
            if stopping {
                disconnectGracefully()
                return .stopped
            }
            if !answered, ContinuousClock.now >= connackDeadline {
                // Not the broker closing the CONNECT (no MQTT5Refusal): a node that does not answer.
                ConnectWait.abandon(socket: lib.mosquitto_socket(handle))
                locked { endLink() }
                return .failed(.brokerUnreachable(
                    "no CONNACK within \(MQTTConnectionFailure.seconds(timeout)) s of the TCP connection (timed out)"))
            }
            rc = lib.mosquitto_loop(handle, 500, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        let systemError = errno
        let (wasUp, reason, stopping, cut) = locked { () -> (Bool, Int?, Bool, Bool) in
            let state = (linkUp, connackReason, stopRequested, dropRequested)
            if !stopRequested { endLink() }  // when stopping, finishRun ends the link and reports it
            return state
        }
        if stopping { return .stopped }
        if wasUp {
            // NO_CONN here: the socket was already closed inside the previous loop pass — the broker
            // sent DISCONNECT (v5: e.g. session taken over by another client with our id).
            return .lost(rc == MOSQ_ERR_NO_CONN.rawValue
                ? .connectionLost("closed by the broker")
                : MQTTClientError(mosquittoCode: rc, phase: .connected, errno: systemError))
        }
        // CONNACK 0x84 Unsupported Protocol Version (MQTT 5.0 §3.2.2.2).
        if v5, reason == 0x84 { return .failed(.connackRefusal(reasonCode: 0x84, isV5: true), refusal: .unsupportedVersion) }
        if let reason, reason != 0 { return .failed(.connackRefusal(reasonCode: reason, isV5: v5)) }
        let detail = lastError.withLock { $0 }
        // An attempt we cut ourselves (`dropConnection()`) says nothing about the broker's protocol.
        if v5, !cut, rc == MOSQ_ERR_CONN_LOST.rawValue, detail == nil {
            // TCP was up, no TLS error, no CONNACK: the broker closed the connection after our CONNECT.
            // A broker that speaks only MQTT 3.1.1 (RabbitMQ 3.10's MQTT plugin) drops a v5 CONNECT so.
            return .failed(.brokerUnreachable(
                "the broker closed the connection before its CONNACK (a broker that speaks only MQTT 3.1.1, "
                    + "such as RabbitMQ 3.10, drops an MQTT 5 CONNECT: set the protocol to 3.1.1)"),
                           refusal: .closedBeforeConnack)
        }
        return .failed(MQTTClientError(mosquittoCode: rc, phase: .connecting, errno: systemError, detail: detail))
    }

    /// Sends DISCONNECT (so the broker discards the will, unless ``willOnStop``: ``endLinkForStop()``)
    /// and lets the loop write it.
    private func disconnectGracefully() {
        guard lib.mosquitto_socket(handle) != -1 else { return }
        locked { endLinkForStop() }
        // Writing DISCONNECT makes libmosquitto close the socket; bounded in case the socket is stuck.
        for _ in 0..<20 where lib.mosquitto_socket(handle) != -1 {
            if lib.mosquitto_loop(handle, 100, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
    }

    /// The link is gone (lock held): subscribe/unsubscribe waiters are answered — the table already
    /// says what will be restored — while QoS ≥ 1 publishes keep waiting for libmosquitto's resend.
    private func endLink() {
        linkUp = false
        connected = false
        pendingRestores.removeAll()
        let subscribers = subscribeWaiters
        subscribeWaiters.removeAll()
        for waiter in subscribers.values { answer(waiter.continuation) }
        let unsubscribers = unsubscribeWaiters
        unsubscribeWaiters.removeAll()
        for waiter in unsubscribers.values { answer(waiter) }
    }

    /// Answers every waiting QoS ≥ 1 publish with `not_connected` (lock held). libmosquitto may still
    /// hold the messages in memory and send them if the client is started again.
    private func failPendingPublishes() {
        let publishers = publishWaiters
        publishWaiters.removeAll()
        for waiter in publishers.values { answer(waiter, throwing: MQTTClientError.notConnected) }
    }

    private func finishRun() {
        locked {
            let wasConnected = connected
            endLink()
            let closing = !stopWaiters.isEmpty
            if wasConnected { emit(.disconnected(nil)) }
            if !closing, let failFast = pendingRelaunch {
                // start()/connect() came while this run was ending: a new run takes over its waiters.
                pendingRelaunch = nil
                launch(failFast: failFast)
                return
            }
            pendingRelaunch = nil
            runState = closing ? .closed : .idle
            stopRequested = false
            failPendingPublishes()
            let connecting = connectWaiters
            connectWaiters.removeAll()
            for waiter in connecting.values { answer(waiter.continuation, throwing: MQTTClientError.notConnected) }
            let stoppers = stopWaiters
            stopWaiters.removeAll()
            for waiter in stoppers { answer(waiter) }
        }
    }

    // MARK: - Callbacks (network thread; see MosquittoCallbacks)

    func handleConnack(reasonCode: Int, flags: Int) {
        locked {
            connackReason = reasonCode
            guard reasonCode == 0 else { return }
            linkUp = true
            connectedAt = .now
            nodes.connected()
            // Configured MQTT 5 but this attempt spoke 3.1.1: the retry of a node that refused MQTT 5
            // (a node already known as 3.1.1 is not reported again).
            if isV5, !attemptIsV5, nodes.fellBackToV311() {
                emit(.fellBackToV311(broker: nodes.urls[nodes.index]))
            }
            sessionPresent = flags & 1 == 1
            // Restore every subscription on every CONNACK: a clean session has none, and re-sending to
            // a persistent session is harmless. `.connected` waits for their SUBACKs.
            pendingRestores.removeAll()
            for (filter, subscription) in subscriptions.entries {
                var mid: Int32 = 0
                let rc = lib.mosquitto_subscribe_v5(handle, &mid, filter, Int32(subscription.qos.rawValue),
                                                attemptIsV5 ? subscription.options.mosquittoBits : 0, nil)
                if rc == MOSQ_ERR_SUCCESS.rawValue { pendingRestores.insert(mid) }
            }
            if pendingRestores.isEmpty { markConnected() }
        }
    }

    /// Whether an incoming payload of `size` bytes is handed on (else it is counted and dropped).
    func acceptsIncoming(size: Int) -> Bool {
        guard let limit = configuration.maximumIncomingPayload, size > limit else { return true }
        oversized.add(1, ordering: .relaxed)
        return false
    }

    /// Incoming messages dropped for their size (`MQTTConfiguration.maximumIncomingPayload`).
    var oversizedMessageCount: Int { oversized.load(ordering: .relaxed) }

    func handleMessage(_ message: MQTTMessage) {
        if case .dropped = messageContinuation.yield(message) {
            dropped.add(1, ordering: .relaxed)
        }
    }

    func handlePublishAcknowledged(mid: Int32, reasonCode: Int) {
        locked {
            guard let waiter = publishWaiters.removeValue(forKey: mid) else { return }
            // v5 reason codes ≥ 0x80 are refusals; 0x10 "no matching subscribers" is a success.
            if reasonCode >= 0x80 {
                answer(waiter, throwing: MQTTClientError.publishRefused(
                    reasonCode: reasonCode, reason: MQTTClientError.reasonText(reasonCode)))
            } else {
                answer(waiter)
            }
        }
    }

    func handleSubscribeAcknowledged(mid: Int32, grantedQoS: [Int]) {
        locked {
            if pendingRestores.remove(mid) != nil {
                if pendingRestores.isEmpty && linkUp && !connected { markConnected() }
                return
            }
            guard let waiter = subscribeWaiters.removeValue(forKey: mid) else { return }
            // 0x80 and above: refused (MQTT 3.1.1 §3.9.3 failure 0x80; MQTT 5.0 §3.9.3 reason codes).
            if let refusal = grantedQoS.first(where: { $0 >= 0x80 }) {
                subscriptions.remove(waiter.filter)
                answer(waiter.continuation, throwing: MQTTClientError.subscriptionRefused(
                    topic: waiter.filter, reasonCode: refusal,
                    reason: attemptIsV5 ? MQTTClientError.reasonText(refusal) : "failure"))
            } else {
                answer(waiter.continuation)
            }
        }
    }

    func handleUnsubscribeAcknowledged(mid: Int32) {
        locked {
            if let waiter = unsubscribeWaiters.removeValue(forKey: mid) { answer(waiter) }
        }
    }

    /// Remembers the last error libmosquitto logged (may run with libmosquitto mutexes held: never
    /// take `lock` here).
    func handleLastError(_ text: String) {
        lastError.withLock { $0 = text }
    }
}
