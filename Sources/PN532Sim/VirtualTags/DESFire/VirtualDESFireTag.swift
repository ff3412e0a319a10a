import enum NFCCore.NFCError
import struct NFCCore.Target
import Synchronization

/// A MIFARE DESFire card (EV1, EV2, EV3, Light) or an NTAG 424 DNA in the emulated field, with its
/// own tables (nothing taken from NFCCore's DESFire code).
///
/// The emulated PN532 does RATS and I-block chaining; this class sees whole ISO-DEP frames and
/// answers both framings (MIFARE DESFire EV1 datasheet MF3ICD(Q)81 §9.1 native, §9.2 ISO 7816
/// wrapped `90 INS 00 00 [Lc data] 00` → `data 91 status`). DESFire Light (MF2DLHX0 §10.1) and
/// NTAG 424 DNA (NT4H2421Gx §10.1) take only wrapped frames: a native frame gets `6E 00`.
///
/// DESFire Light has one application and no directory: SelectApplication and GetApplicationIDs answer
/// ILLEGAL_COMMAND_CODE, and the application is entered with ISO SELECT by its DF name (`00 A4 04 0C
/// 10 A000000396564341 03F015400000000B`, MF2DLHX0 §8.2.1). Any application with a `dfName` answers
/// ISO SELECT that way. Other ISO 7816 APDUs go to the card's NFC Forum Type 4 application when it has
/// one (`ndefApplication`, a ``VirtualType4Tag``), else answer 6A82 (SELECT) or 6D00. An NTAG 424 DNA's
/// one application is its Type 4 one: a SELECT of its DF name (D2760000850101) selects the DESFire
/// application and reaches the Type 4 application too.
///
/// Each model accepts its own datasheet's command set (``VirtualDESFireCommandSets``): a code outside
/// it answers ILLEGAL_COMMAND_CODE (91 1C) — a DESFire Light refuses ReadData BDh, an NTAG 424 DNA
/// GetFileIDs — and a code in it that is not modelled answers PERMISSION_DENIED (91 9D). Modelled
/// (EV1 datasheet §9.2): GetVersion 60h, SelectApplication 5Ah, GetApplicationIDs 6Ah,
/// GetFileIDs 6Fh, GetKeySettings 45h, GetKeyVersion 64h, GetFileSettings F5h, ReadData BDh / ADh,
/// GetValue 6Ch, ReadRecords BBh / ABh, Read_Sig 3Ch (EV2, EV3, Light, NTAG 424 DNA) and ADDITIONAL_FRAME AFh. Long answers come in frames
/// (GetVersion 7 + 7 + 14 bytes, 19 AIDs, 59 data bytes) with status AFh. Authentication
/// (``VirtualDESFireSecurity``): AuthenticateAES AAh (EV1, EV2, EV3) and AuthenticateEV2First 71h (EV2,
/// EV3, Light, NTAG 424 DNA) with each application's AES keys (``Application/keys``, all-zero for a key
/// not given); a file whose read or read&write right is the authenticated key is then read in its
/// communication mode (MACed, fully enciphered). Without that session a file whose read and
/// read&write rights are both a key answers 91AE, one whose rights are both "never" (Fh) answers 919D.
/// Any error, SelectApplication and a new authentication end the session.
public final class VirtualDESFireTag: ISODEPVirtualTag {
    /// Which chip the card is: decides the GetVersion answer and the framings taken.
    public enum Model: Sendable, CaseIterable {
        case d40, ev1, ev2, ev3, light, ntag424

        /// GetVersion hardware and software parts (vendor 04 NXP, type, subtype, major, minor,
        /// storage size, protocol 05). EV1 `04 01 01 01 00 18 05` (MF3ICD81 §9.5.1, 4 KB); EV2
        /// `04 01 01 12 00 1A 05` (8 KB, as Flipper's example dump); EV3 `04 01 01 33 00 1A 05`;
        /// Light `04 08 01 30 00 13 05` (640 B); NTAG 424 DNA `04 04 02 30 00 11 05` (NT4H2421Gx §10.5.2);
        /// the first DESFire, MF3ICD40, `04 01 01 00 02 18 05` (major 00h, 4 KB; software 00 06).
        var versionParts: (hardware: [UInt8], software: [UInt8]) {
            switch self {
            case .d40: ([0x04, 0x01, 0x01, 0x00, 0x02, 0x18, 0x05], [0x04, 0x01, 0x01, 0x00, 0x06, 0x18, 0x05])
            case .ev1: ([0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05], [0x04, 0x01, 0x01, 0x01, 0x04, 0x18, 0x05])
            case .ev2: ([0x04, 0x01, 0x01, 0x12, 0x00, 0x1A, 0x05], [0x04, 0x01, 0x01, 0x12, 0x00, 0x1A, 0x05])
            case .ev3: ([0x04, 0x01, 0x01, 0x33, 0x00, 0x1A, 0x05], [0x04, 0x01, 0x01, 0x03, 0x00, 0x1A, 0x05])
            case .light: ([0x04, 0x08, 0x01, 0x30, 0x00, 0x13, 0x05], [0x04, 0x08, 0x01, 0x30, 0x00, 0x13, 0x05])
            case .ntag424: ([0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05], [0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05])
            }
        }

        /// The ATS without its TL byte. EV1 `75 77 81 02 80` (MF3ICD(Q)81 §8.1: FSCI 5 = 64 bytes, TA 77h,
        /// TB 81h = FWI 8 / SFGI 1, TC 02h, historical byte 80h); EV2 and EV3 answer the same (EV3 cards'
        /// logs show `06 75 77 81 02 80`). NTAG 424 DNA `77 77 71 02 80` (FSCI 7 = 128 bytes, TB 71h =
        /// FWI 7 / SFGI 1), as the NT4H2421Gx cards answer and as ``VirtualSDMTag`` has it. Light keeps
        /// the EV1 value: the MF2DL(H)x0 ATS figure was not at hand (UNVERIFIED).
        var ats: [UInt8] {
            switch self {
            case .d40, .ev1, .ev2, .ev3, .light: [0x75, 0x77, 0x81, 0x02, 0x80]
            case .ntag424: [0x77, 0x77, 0x71, 0x02, 0x80]
            }
        }

        /// Light and NTAG 424 DNA take ISO frames only.
        var takesNativeFrames: Bool { self == .d40 || self == .ev1 || self == .ev2 || self == .ev3 }
    }

    /// The status bytes this card sends (EV1 datasheet §9.3).
    public enum Status {
        public static let ok: UInt8 = 0x00
        public static let illegalCommand: UInt8 = 0x1C
        public static let integrityError: UInt8 = 0x1E
        public static let noSuchKey: UInt8 = 0x40
        public static let lengthError: UInt8 = 0x7E
        public static let permissionDenied: UInt8 = 0x9D
        public static let parameterError: UInt8 = 0x9E
        public static let applicationNotFound: UInt8 = 0xA0
        public static let authenticationError: UInt8 = 0xAE
        public static let additionalFrame: UInt8 = 0xAF
        public static let boundaryError: UInt8 = 0xBE
        public static let fileNotFound: UInt8 = 0xF0
    }

    /// What a file holds.
    public enum Contents: Sendable, Equatable {
        /// A standard data file (type 00h) or a backup data file (01h) of these bytes.
        case standard([UInt8])
        case backup([UInt8])
        /// A value file (02h).
        case value(Int32, lower: Int32, upper: Int32, limitedCredit: Int32 = 0, limitedCreditEnabled: Bool = false)
        /// A linear (03h) or cyclic (04h) record file with records of `recordSize` bytes, oldest first.
        case linear(recordSize: Int, maxRecords: Int, records: [[UInt8]])
        case cyclic(recordSize: Int, maxRecords: Int, records: [[UInt8]])
    }

    /// Nibble values of an access right (EV1 datasheet §6.5).
    public static let free: UInt8 = 0x0E
    public static let never: UInt8 = 0x0F

    /// One file: number, communication settings (00 plain, 01 MACed, 03 enciphered), the four access
    /// right nibbles (0–D key, E free, F never) and its contents.
    public struct File: Sendable, Equatable {
        public var id: UInt8
        public var communication: UInt8
        public var read: UInt8
        public var write: UInt8
        public var readWrite: UInt8
        public var change: UInt8
        public var contents: Contents
        /// Sends a wrong MAC with the file's secured answers (a scenario's `corrupt_mac`): what a reader
        /// must refuse as an integrity error.
        public var corruptMAC = false

        public init(id: UInt8, communication: UInt8 = 0x00, read: UInt8, write: UInt8 = 0x00,
                    readWrite: UInt8 = 0x00, change: UInt8 = 0x00, contents: Contents, corruptMAC: Bool = false) {
            self.corruptMAC = corruptMAC
            self.id = id
            self.communication = communication
            self.read = read
            self.write = write
            self.readWrite = readWrite
            self.change = change
            self.contents = contents
        }
    }

    /// One application: AID in card order (LSB first), whether GetFileIDs needs authentication
    /// (key settings bit 1 "free directory list" cleared), and its files.
    public struct Application: Sendable, Equatable {
        public var aid: [UInt8]
        public var listRequiresAuthentication: Bool
        public var files: [File]
        /// ISO DF name the application answers ISO SELECT to, or nil.
        public var dfName: [UInt8]?
        /// The application's keys by number, all of ``keyType``; a key number not listed holds the
        /// all-zero key (the key an application is created with, EV1 datasheet §9.5.1).
        public var keys: [UInt8: [UInt8]]
        /// The cipher of every key of the application (EV1 datasheet §9.5.1 CreateApplication: key
        /// settings 2 bits 7–6).
        public var keyType: KeyType

        public init(aid: [UInt8], listRequiresAuthentication: Bool = false, files: [File], dfName: [UInt8]? = nil,
                    keys: [UInt8: [UInt8]] = [:], keyType: KeyType = .aes) {
            self.keys = keys
            self.keyType = keyType
            self.aid = aid
            self.listRequiresAuthentication = listRequiresAuthentication
            self.files = files
            self.dfName = dfName
        }
    }

    /// An application's key cipher (EV1 datasheet §9.5.1: key settings 2 bits 7–6 00 DES / 2K3DES, 01
    /// 3K3DES, 10 AES), with its key length and the bits GetKeySettings shows.
    public enum KeyType: Sendable, Equatable {
        case aes, tdes2k, tdes3k

        public var keyLength: Int { self == .tdes3k ? 24 : 16 }
        var settingsBits: UInt8 {
            switch self {
            case .aes: 0x80
            case .tdes2k: 0x00
            case .tdes3k: 0x40
            }
        }
    }

    /// DESFire Light's factory DF name (MF2DLHX0 §8.2.1; ISO file id DF01).
    public static let lightDFName: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x96, 0x56, 0x43, 0x41, 0x03, 0xF0, 0x15, 0x40,
                                              0x00, 0x00, 0x00, 0x0B]

    /// NTAG 424 DNA's one application: the NFC Forum Type 4 one (NT4H2421Gx §8.2, ISO file id E110).
    public static let ntag424DFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

    public let target: Target
    public let model: Model
    let applications: [Application]
    let directoryRequiresAuthentication: Bool
    /// The NFC Forum Type 4 application (NDEF), reached by ISO 7816 APDUs.
    public let ndefApplication: VirtualType4Tag?
    private let state = Mutex(State())

    private struct State {
        var selected: [UInt8] = [0x00, 0x00, 0x00]
        /// Frames still to send after an AFh answer.
        var pending: [[UInt8]] = []
        /// Authentication and secure messaging.
        var auth: VirtualDESFireSecurity.Progress = .none
    }

    /// The Read_Sig answer; nil: a made-up one from the UID (not a valid NXP signature). Kept apart
    /// from ``State``, which a field reset starts afresh: the signature is factory data.
    private let signature = Mutex<[UInt8]?>(nil)

    /// The 56-byte originality signature Read_Sig answers (EV2 / EV3 / Light / NTAG 424 DNA). By
    /// default a pattern made from the UID, which verifies against no key; a scenario's `signature`
    /// gives a genuine one published with its UID.
    public var originalitySignature: [UInt8] {
        get { signature.withLock { $0 } ?? originalitySignatureDefault }
        set { signature.withLock { $0 = newValue } }
    }

    /// A card of `model` holding `applications`. `directoryRequiresAuthentication` models PICC
    /// master key settings with "free directory list" cleared: GetApplicationIDs answers 91AE.
    /// A DESFire Light or an NTAG 424 DNA holds exactly one application; it answers ISO SELECT by
    /// ``lightDFName`` / ``ntag424DFName`` unless the application names another DF. `ndefApplication`
    /// answers the ISO 7816 APDUs of the NFC Forum Type 4 mapping. Throws
    /// ``NFCError/invalidArgument(_:)`` for a UID that is not 7 bytes, an AID that is not 3 bytes or is
    /// 000000, a Light or 424 DNA without exactly one application, or a record that does not match its
    /// file's record size.
    public init(uid: [UInt8], model: Model, applications: [Application], directoryRequiresAuthentication: Bool = false,
                ndefApplication: VirtualType4Tag? = nil) throws(NFCError) {
        guard uid.count == 7 else { throw .invalidArgument("A DESFire UID has 7 bytes, not \(uid.count)") }
        var applications = applications
        if model == .light || model == .ntag424 {
            // One application, entered by ISO SELECT of its DF name (MF2DL(H)x0 §8.2.1; NT4H2421Gx §8.2).
            guard applications.count == 1 else {
                throw .invalidArgument("A \(model == .light ? "DESFire Light" : "NTAG 424 DNA") has exactly one application")
            }
            if applications[0].dfName == nil { applications[0].dfName = model == .light ? Self.lightDFName : Self.ntag424DFName }
        }
        for app in applications {
            guard app.aid.count == 3, app.aid != [0, 0, 0] else { throw .invalidArgument("An AID has 3 bytes and is not 000000") }
            for file in app.files {
                switch file.contents {
                case let .linear(size, max, records), let .cyclic(size, max, records):
                    guard size > 0, records.count <= max, records.allSatisfy({ $0.count == size }) else {
                        throw .invalidArgument("Records of file \(file.id) do not match record size \(size) / \(max) records")
                    }
                default: break
                }
            }
        }
        self.model = model
        self.applications = applications
        self.directoryRequiresAuthentication = directoryRequiresAuthentication
        self.ndefApplication = ndefApplication
        // ATQA 0344, SAK 20 (EV1 datasheet §8.1), the model's ATS.
        self.target = Target(modulation: .iso14443a, uid: uid, atqa: [0x03, 0x44], sak: 0x20, ats: model.ats)
    }

    /// The 28-byte GetVersion answer: hardware, software, UID, batch 00 11 22 33 44, week 0x10, year 0x21.
    public var versionBytes: [UInt8] {
        let parts = model.versionParts
        return parts.hardware + parts.software + target.uid + [0x00, 0x11, 0x22, 0x33, 0x44, 0x10, 0x21]
    }

    public func activate() -> Bool {
        state.withLock { $0 = State() }
        _ = ndefApplication?.activate()
        return true
    }

    public func powerOff() {
        state.withLock { $0 = State() }
        ndefApplication?.powerOff()
    }

    /// ISO 14443-3 frames: the emulator handles RATS and blocks itself.
    public func receive(_ frame: [UInt8]) -> VirtualTagReply { .silent }

    public func process(apdu: [UInt8]) -> [UInt8] {
        if apdu.first == 0x90 {
            // 90 INS 00 00 [Lc data] 00 (EV1 datasheet §9.2).
            guard apdu.count >= 5, apdu[2] == 0, apdu[3] == 0, apdu.last == 0 else { return [0x67, 0x00] }
            let data: [UInt8]
            if apdu.count == 5 {
                data = []
            } else {
                guard Int(apdu[4]) == apdu.count - 6, apdu[4] > 0 else { return [0x67, 0x00] }
                data = Array(apdu[5..<(apdu.count - 1)])
            }
            let (status, out) = execute(apdu[1], data)
            return out + [0x91, status]
        }
        if apdu.first == 0x00 { return processISO(apdu) }
        guard model.takesNativeFrames else { return [0x6E, 0x00] }
        guard let instruction = apdu.first else { return [Status.lengthError] }
        let (status, out) = execute(instruction, Array(apdu.dropFirst()))
        return [status] + out
    }

    /// ISO 7816 APDUs: SELECT by DF name of a DESFire application (ISO/IEC 7816-4 §11.1.1, `00 A4 04
    /// 0C Lc name [Le]`), else the Type 4 application's.
    private func processISO(_ apdu: [UInt8]) -> [UInt8] {
        if apdu.count >= 5, apdu[1] == 0xA4, apdu[2] == 0x04, Int(apdu[4]) + 5 <= apdu.count {
            let name = Array(apdu[5..<(5 + Int(apdu[4]))])
            if let app = applications.first(where: { $0.dfName == name }) {
                // The Type 4 application hears the SELECT too: on an NTAG 424 DNA it is the same one.
                _ = ndefApplication?.process(apdu: apdu)
                state.withLock { $0 = State(selected: app.aid) }
                return [0x90, 0x00]
            }
        }
        if let ndefApplication {
            // Another DF selected leaves the DESFire application; a file SELECT or a read does not.
            if apdu.count >= 3, apdu[1] == 0xA4, apdu[2] == 0x04 { state.withLock { $0 = State() } }
            return ndefApplication.process(apdu: apdu)
        }
        return apdu.count >= 2 && apdu[1] == 0xA4 ? [0x6A, 0x82] : [0x6D, 0x00]
    }

    /// Runs one command; the first frame of a long answer is returned and the rest kept for AFh.
    func execute(_ instruction: UInt8, _ data: [UInt8]) -> (UInt8, [UInt8]) {
        state.withLock { s in
            if instruction == 0xAF, case let .awaitingProof(method, number, key, rndB, chain) = s.auth {
                s.auth = .none
                guard let done = VirtualDESFireSecurity.finish(proof: data, method: method, keyNumber: number, key: key, rndB: rndB, chain: chain)
                else { return (Status.authenticationError, []) }
                s.auth = .authenticated(done.session)
                return (Status.ok, done.answer)
            }
            if case .awaitingProof = s.auth { s.auth = .none }
            if instruction == 0xAF {
                guard !s.pending.isEmpty else { return (Status.illegalCommand, []) }
                let frame = s.pending.removeFirst()
                return (s.pending.isEmpty ? Status.ok : Status.additionalFrame, frame)
            }
            s.pending = []
            switch VirtualDESFireCommandSets.handling(of: instruction, by: model) {
            case nil: return (Status.illegalCommand, [])
            case .notSimulated?: return (Status.permissionDenied, [])
            case .simulated?: break
            }
            if [0x0A, 0x1A, 0xAA, 0x71, 0x77].contains(instruction) { return authenticate(instruction, data, &s) }
            let before = s.auth
            let frames: [[UInt8]]
            switch answer(instruction, data, &s) {
            case let .success(answerFrames): frames = answerFrames
            case let .failure(status):
                // Any error ends the authentication (EV1 datasheet §9.3; AN12196 §5.2).
                s.auth = .none
                return (status.rawValue, [])
            }
            // EV2 counts every command of its session; a secured read has counted its own.
            if s.auth == before, case let .authenticated(session) = before { s.auth = .authenticated(VirtualDESFireSecurity.counted(session)) }
            guard let first = frames.first else { return (Status.ok, []) }
            s.pending = Array(frames.dropFirst())
            return (s.pending.isEmpty ? Status.ok : Status.additionalFrame, first)
        }
    }

    struct Refusal: Error { var rawValue: UInt8 }

    /// Keys of an application: two (the demonstration's GetKeySettings, maxKeys 82h) or five on a Light or
    /// NTAG 424 DNA (NT4H2421Gx §10.4.1 Table 25), or one past the highest the scenario gives.
    func keyCount(_ app: Application) -> UInt8 {
        max(model == .light || model == .ntag424 ? 5 : 2, (app.keys.keys.max() ?? 0) + 1)
    }

    /// The first step of an authentication: AuthenticateAES `AA kk`, AuthenticateEV2First `71 kk LenCap
    /// [PCDcap2]`, AuthenticateEV2NonFirst `77 kk` (AN12343 "AuthenticateEV2NonFirst": only inside an EV2First session, whose TI
    /// and counter it keeps; without one 91 AE, UNVERIFIED against the EV2 datasheet), AuthenticateISO
    /// `1A kk` and the legacy Authenticate `0A kk`. Each takes only keys of its cipher: AES for AAh / 71h
    /// / 77h, DES / 2K3DES / 3K3DES for 1Ah, DES / 2K3DES for 0Ah; another answers AUTHENTICATION_ERROR.
    private func authenticate(_ instruction: UInt8, _ data: [UInt8], _ s: inout State) -> (UInt8, [UInt8]) {
        let previous = s.auth
        s.auth = .none
        let method: VirtualDESFireSecurity.Method
        switch instruction {
        case 0x71: method = .ev2First
        case 0x77:
            guard case let .authenticated(.ev2(_, _, _, ti, counter)) = previous else { return (Status.authenticationError, []) }
            method = .ev2NonFirst(transactionIdentifier: ti, counter: counter)
        case 0x1A: method = .iso
        case 0x0A: method = .legacy
        default: method = .aes
        }
        guard let number = data.first, method == .ev2First ? data.count >= 2 && Int(data[1]) == data.count - 2 : data.count == 1 else {
            return (Status.lengthError, [])
        }
        // The PICC master key is a DES key here (GetKeySettings): no AES authentication at PICC level.
        guard let app = applications.first(where: { $0.aid == s.selected }) else { return (Status.authenticationError, []) }
        guard number < keyCount(app) else { return (Status.noSuchKey, []) }
        let fits = switch method {
        case .aes, .ev2First, .ev2NonFirst: app.keyType == .aes
        case .iso: app.keyType != .aes
        case .legacy: app.keyType == .tdes2k
        }
        guard fits else { return (Status.authenticationError, []) }
        let key = app.keys[number] ?? [UInt8](repeating: 0, count: app.keyType.keyLength)
        guard let started = VirtualDESFireSecurity.begin(method, keyNumber: number, key: key) else {
            return (Status.authenticationError, [])
        }
        s.auth = started.progress
        return (Status.additionalFrame, started.answer)
    }

    /// Splits `bytes` into frames of `size` (at least one frame, possibly empty).
    static func frames(_ bytes: [UInt8], of size: Int) -> [[UInt8]] {
        guard !bytes.isEmpty else { return [[]] }
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    private func answer(_ instruction: UInt8, _ data: [UInt8], _ s: inout State) -> Result<[[UInt8]], Refusal> {
        let refuse = { (status: UInt8) in Result<[[UInt8]], Refusal>.failure(Refusal(rawValue: status)) }
        switch instruction {
        case 0x60:
            guard data.isEmpty else { return refuse(Status.lengthError) }
            let v = versionBytes
            return .success([Array(v[0..<7]), Array(v[7..<14]), Array(v[14...])])
        case 0x5A:
            guard data.count == 3 else { return refuse(Status.lengthError) }
            guard data == [0, 0, 0] || applications.contains(where: { $0.aid == data }) else {
                return refuse(Status.applicationNotFound)
            }
            s.selected = data
            s.auth = .none
            return .success([])
        case 0x6A:
            guard data.isEmpty else { return refuse(Status.lengthError) }
            guard s.selected == [0, 0, 0] else { return refuse(Status.permissionDenied) }
            guard !directoryRequiresAuthentication else { return refuse(Status.authenticationError) }
            // 19 AIDs (57 bytes) a frame (EV1 datasheet §9.2.4 GetApplicationIDs).
            return .success(Self.frames(applications.flatMap(\.aid), of: 57))
        case 0x45:
            // GetKeySettings (EV1 datasheet §9.2.1): PICC one DES key, settings 0F (0D without free
            // directory list); applications two AES keys (maxKeys 82h), settings 0B (09 without it).
            guard data.isEmpty else { return refuse(Status.lengthError) }
            guard let app = applications.first(where: { $0.aid == s.selected }) else {
                return .success([[directoryRequiresAuthentication ? 0x0D : 0x0F, 0x01]])
            }
            return .success([[app.listRequiresAuthentication ? 0x09 : 0x0B, app.keyType.settingsBits | keyCount(app)]])
        case 0x64:
            // GetKeyVersion (EV1 datasheet §9.2.1): key versions 00 (PICC) and 10h + key number
            // (applications); a key past the count answers NO_SUCH_KEY.
            guard data.count == 1 else { return refuse(Status.lengthError) }
            // Light and NTAG 424 DNA: five application keys 0–4 (NT4H2421Gx §10.4.1 Table 25).
            let isPICC = s.selected == [0, 0, 0]
            let appKeys = applications.first(where: { $0.aid == s.selected }).map(keyCount) ?? 2
            guard data[0] < (isPICC ? 1 : appKeys) else { return refuse(Status.noSuchKey) }
            return .success([[isPICC ? 0x00 : 0x10 + data[0]]])
        case 0x6F:
            guard data.isEmpty else { return refuse(Status.lengthError) }
            guard let app = applications.first(where: { $0.aid == s.selected }) else { return refuse(Status.permissionDenied) }
            guard !app.listRequiresAuthentication else { return refuse(Status.authenticationError) }
            return .success([app.files.map(\.id)])
        case 0xF5, 0xBD, 0xAD, 0x6C, 0xBB, 0xAB:
            let expected = instruction == 0xF5 || instruction == 0x6C ? 1 : 7
            // A read under the session of the key the file's right names: the command checked (EV2 MACt)
            // and the answer secured in the file's communication mode.
            var data = data
            var session: VirtualDESFireSecurity.Session?
            if instruction != 0xF5, case let .authenticated(open) = s.auth, let id = data.first,
                let file = applications.first(where: { $0.aid == s.selected })?.files.first(where: { $0.id == id }),
                file.read != Self.free, file.readWrite != Self.free, [file.read, file.readWrite].contains(open.keyNumber)
            {
                var moved = open
                guard let plain = VirtualDESFireSecurity.acceptCommand(&moved, instruction: instruction, data: data, mode: file.communication)
                else { return refuse(Status.integrityError) }
                data = plain
                session = moved
            }
            guard data.count == expected else { return refuse(Status.lengthError) }
            guard let app = applications.first(where: { $0.aid == s.selected }) else { return refuse(Status.permissionDenied) }
            guard let file = app.files.first(where: { $0.id == data[0] }) else { return refuse(Status.fileNotFound) }
            if instruction == 0xF5 { return .success([settings(of: file)]) }
            if file.read == Self.never && file.readWrite == Self.never { return refuse(Status.permissionDenied) }
            guard file.read == Self.free || file.readWrite == Self.free || session != nil else { return refuse(Status.authenticationError) }
            let offset = data.count == 7 ? Int(data[1]) | Int(data[2]) << 8 | Int(data[3]) << 16 : 0
            let length = data.count == 7 ? Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 : 0
            // ADh / ABh take the parameters of BDh / BBh (NT4H2421Gx §10.8 ReadData; MF2DL(H)x0 command set).
            let plain: UInt8 = instruction == 0xAD ? 0xBD : instruction == 0xAB ? 0xBB : instruction
            let result = read(plain, file.contents, offset: offset, length: length)
            guard var open = session, case let .success(frames) = result else { return result }
            guard let secured = VirtualDESFireSecurity.secureAnswer(&open, data: frames.flatMap { $0 }, mode: file.communication,
                                                                    corrupt: file.corruptMAC)
            else { return refuse(Status.integrityError) }
            s.auth = .authenticated(open)
            return .success(Self.frames(secured, of: 59))
        case 0x3C:
            // Read_Sig (MIFARE DESFire EV2 / EV3, MF2DLHX0 and NT4H2421Gx Read_Sig): address 00h, answered
            // by the 56-byte ECC signature, in plain without authentication.
            guard data.count == 1 else { return refuse(Status.lengthError) }
            guard data[0] == 0x00 else { return refuse(Status.parameterError) }
            return .success([originalitySignature])
        default:
            return refuse(Status.illegalCommand)
        }
    }

    /// The made-up signature of a card without a scenario `signature`.
    private var originalitySignatureDefault: [UInt8] {
        (0..<56).map { target.uid[$0 % max(1, target.uid.count)] ^ UInt8($0) }
    }

    private func read(_ instruction: UInt8, _ contents: Contents, offset: Int, length: Int) -> Result<[[UInt8]], Refusal> {
        switch (instruction, contents) {
        case let (0xBD, .standard(bytes)), let (0xBD, .backup(bytes)):
            // ReadData (EV1 datasheet §9.2.3): length 0 = from offset to the end; 59 bytes a frame.
            let count = length == 0 ? bytes.count - offset : length
            guard offset <= bytes.count, count >= 0, offset + count <= bytes.count else { return .failure(Refusal(rawValue: Status.boundaryError)) }
            return .success(Self.frames(Array(bytes[offset..<offset + count]), of: 59))
        case let (0x6C, .value(value, _, _, _, _)):
            return .success([le(UInt32(bitPattern: value), 4)])
        case let (0xBB, .linear(_, _, records)), let (0xBB, .cyclic(_, _, records)):
            // ReadRecords (EV1 datasheet §9.2.7): offset counts back from the newest record; length 0 =
            // all older ones; answered oldest first. No record at all → BOUNDARY_ERROR.
            let count = length == 0 ? records.count - offset : length
            guard !records.isEmpty, offset < records.count, count > 0, offset + count <= records.count else {
                return .failure(Refusal(rawValue: Status.boundaryError))
            }
            let end = records.count - offset
            return .success(Self.frames(records[(end - count)..<end].flatMap { $0 }, of: 59))
        default:
            return .failure(Refusal(rawValue: Status.parameterError))
        }
    }

    private func le(_ value: UInt32, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// GetFileSettings answer (EV1 datasheet §9.2.5): type, comm settings, access rights
    /// (RW<<4|Change, Read<<4|Write), then size (3) / limits and limited credit (4+4+4+1) /
    /// record size, max and current records (3+3+3), all LSB first.
    private func settings(of file: File) -> [UInt8] {
        let head = [file.communication, file.readWrite << 4 | file.change, file.read << 4 | file.write]
        switch file.contents {
        case let .standard(bytes): return [0x00] + head + le(UInt32(bytes.count), 3)
        case let .backup(bytes): return [0x01] + head + le(UInt32(bytes.count), 3)
        case let .value(_, lower, upper, credit, enabled):
            return [0x02] + head + le(UInt32(bitPattern: lower), 4) + le(UInt32(bitPattern: upper), 4)
                + le(UInt32(bitPattern: credit), 4) + [enabled ? 0x01 : 0x00]
        case let .linear(size, max, records):
            return [0x03] + head + le(UInt32(size), 3) + le(UInt32(max), 3) + le(UInt32(records.count), 3)
        case let .cyclic(size, max, records):
            return [0x04] + head + le(UInt32(size), 3) + le(UInt32(max), 3) + le(UInt32(records.count), 3)
        }
    }
}
